import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Role } from '@app/domain';
import { ACCOUNT_LIMIT, type LimitName, NO_PERSON_LIMIT, RateLimits } from '../../common/rate-limits/rate-limits';
import { PanelCsrfRejected, PanelForbidden, PanelRateLimited, PanelSignInRequired } from '../panel-errors';
import { CSRF_FIELD, tokensMatch } from './csrf';
import { SESSION_COOKIE, readCookie } from './panel-cookies';
import type { PanelContext, PanelRequest } from './panel-context';
import { PanelSessionsRepository } from './panel-sessions.repository';

const PANEL_ROLES = 'panel:roles';

/** Roles allowed on a panel controller or page; without it every signed-in user is. */
export const PanelRoles = (...roles: Role[]): MethodDecorator & ClassDecorator => SetMetadata(PANEL_ROLES, roles);

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The panel's own authentication: a valid session cookie, then the role, then — on every
 * state-changing request — the session's CSRF token in the form body, compared in constant time.
 *
 * Then the rate limits, so that no panel POST can be added without them: every state-changing
 * request counts against the signed-in person (PANEL_POSTS_PER_MINUTE), and a route marked with
 * `@AccountLimit(...)` against the company as well (webhook test events, endpoint registration).
 * Both are consumed before the route runs, so a refused request (429 page) does nothing.
 */
@Injectable()
export class PanelSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: PanelSessionsRepository,
    private readonly reflector: Reflector,
    private readonly limits: RateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<PanelRequest>();
    const lookup = await this.sessions.resolve(readCookie(request, SESSION_COOKIE));
    if (!lookup.ok) throw new PanelSignInRequired(lookup.reason);
    request.panel = lookup.context;
    if (!SAFE_METHODS.has(request.method)) {
      const body = request.body as Record<string, unknown> | undefined;
      if (!tokensMatch(body?.[CSRF_FIELD], lookup.context.csrfToken)) throw new PanelCsrfRejected('bad or missing CSRF token');
    }
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(PANEL_ROLES, [context.getHandler(), context.getClass()]);
    if (roles && !roles.includes(lookup.context.user.role)) throw new PanelForbidden(`role ${lookup.context.user.role} may not use this page`);
    if (!SAFE_METHODS.has(request.method)) {
      if (!this.reflector.get<boolean | undefined>(NO_PERSON_LIMIT, context.getHandler())) await this.spend('panel-post-per-user', lookup.context.user.id);
      const accountLimit = this.reflector.get<LimitName | undefined>(ACCOUNT_LIMIT, context.getHandler());
      if (accountLimit) await this.spend(accountLimit, lookup.context.account.id);
    }
    return true;
  }

  private async spend(limit: LimitName, key: string): Promise<void> {
    const outcome = await this.limits.consume(limit, key);
    if (!outcome.allowed) throw new PanelRateLimited(outcome.retryAfterSeconds);
  }
}

export const Panel = createParamDecorator((_: unknown, context: ExecutionContext): PanelContext => {
  const panel = context.switchToHttp().getRequest<PanelRequest>().panel;
  if (!panel) throw new Error('@Panel() used on a route without PanelSessionGuard');
  return panel;
});
