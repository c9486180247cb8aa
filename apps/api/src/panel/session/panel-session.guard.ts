import { applyDecorators, type CanActivate, createParamDecorator, type ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PANEL_ROUTE, type PanelAccess, PanelRoute } from '../../auth/auth.decorators';
import { ACCOUNT_LIMIT, type LimitName, NO_PERSON_LIMIT, RateLimits } from '../../common/rate-limits/rate-limits';
import { PanelCsrfRejected, PanelForbidden, PanelRateLimited, PanelSignInRequired } from '../panel-errors';
import { CSRF_FIELD, tokensMatch } from './csrf';
import { SESSION_COOKIE, readCookie } from './panel-cookies';
import type { PanelContext, PanelRequest } from './panel-context';
import { PanelSessionsRepository } from './panel-sessions.repository';
import type { Role } from '@app/vocabulary';

export const PANEL_ROLES = 'panel:roles';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The panel's own authentication, applied by `@PanelSession(...)`: a valid session cookie, then —
 * on every state-changing request — the session's CSRF token in the form body, compared in
 * constant time, then the role.
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
    const targets = [context.getHandler(), context.getClass()];
    // A page declared @PanelPublic() on a controller that is @PanelSession(...) is public, as declared.
    if (this.reflector.getAllAndOverride<PanelAccess | undefined>(PANEL_ROUTE, targets) === 'public') return true;
    const request = context.switchToHttp().getRequest<PanelRequest>();
    // Declared on the controller and on the page: checked (and counted) once.
    if (request.panel) return true;
    const lookup = await this.sessions.resolve(readCookie(request, SESSION_COOKIE));
    if (!lookup.ok) throw new PanelSignInRequired(lookup.reason);
    request.panel = lookup.context;
    if (!SAFE_METHODS.has(request.method)) {
      const body = request.body as Record<string, unknown> | undefined;
      if (!tokensMatch(body?.[CSRF_FIELD], lookup.context.csrfToken)) throw new PanelCsrfRejected('bad or missing CSRF token');
    }
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(PANEL_ROLES, targets);
    if (roles && roles.length > 0 && !roles.includes(lookup.context.user.role)) throw new PanelForbidden(`role ${lookup.context.user.role} may not use this page`);
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

/**
 * A panel page behind the panel session: applies PanelSessionGuard and the roles allowed (none
 * listed: every signed-in person of the company). Marks the route as the panel's, so the API's
 * global guards stand aside (see apiGuardsStandAside), and the route table lists it as
 * `panel-session` with these roles. Declare it once per route, on the controller or on the page
 * (the page's declaration wins).
 */
export const PanelSession = (...roles: Role[]): MethodDecorator & ClassDecorator =>
  applyDecorators(PanelRoute('session'), SetMetadata(PANEL_ROLES, roles), UseGuards(PanelSessionGuard));

/**
 * A panel page anyone may open: the sign-in page (its form has its own CSRF check and rate limits)
 * and the stylesheet. Listed as `panel-public` in the route table.
 */
export const PanelPublic = (): MethodDecorator & ClassDecorator => PanelRoute('public');

export const Panel = createParamDecorator((_: unknown, context: ExecutionContext): PanelContext => {
  const panel = context.switchToHttp().getRequest<PanelRequest>().panel;
  if (!panel) throw new Error('@Panel() used on a route without @PanelSession()');
  return panel;
});
