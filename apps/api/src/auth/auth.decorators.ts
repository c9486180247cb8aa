import type { Scope } from '@app/vocabulary';
import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ApiHeader, ApiOAuth2, ApiResponse } from '@nestjs/swagger';
import { problemResponse } from '../common/openapi-responses';
import type { AuthenticatedRequest, Principal } from './principal';

export const PUBLIC_ROUTE = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';
export const TENANT_FREE = 'auth:tenant-free';
export const PANEL_ROUTE = 'auth:panel';
export const OAUTH2_SCHEME = 'oauth2';

/**
 * The route needs no token (token exchange, API index, schema, health, pages opened from a link).
 * Not for the web panel: its routes declare `@PanelSession(...)` or `@PanelPublic()`.
 */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * How a route of the web panel (/panel/) is reached: `session` behind the panel's session cookie,
 * `public` for the sign-in page and the stylesheet. Set only through the panel's own decorators,
 * `@PanelSession(...roles)` (which applies the panel's session guard) and `@PanelPublic()`, in
 * panel/session/panel-session.guard.ts.
 */
export type PanelAccess = 'session' | 'public';

/** Marks a route as the web panel's: not an API route (see apiGuardsStandAside). */
export const PanelRoute = (access: PanelAccess): MethodDecorator & ClassDecorator => SetMetadata(PANEL_ROUTE, access);

/**
 * Whether the global API guards (token → rate limit → scopes → tenant) stand aside for this route:
 * it is `@Public()`, or it is a web panel route, which the panel's session guard protects instead
 * (a browser has a session cookie, not an API token). The one place the guards decide this; every
 * other route needs a token, and is refused by the scopes guard unless it declares `@Scopes(...)`.
 */
export function apiGuardsStandAside(reflector: Reflector, context: ExecutionContext): boolean {
  const targets = [context.getHandler(), context.getClass()];
  if (reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
  return reflector.getAllAndOverride<PanelAccess | undefined>(PANEL_ROUTE, targets) !== undefined;
}

/**
 * Declares the scopes a route requires (all of them) and documents them. A route without this
 * decorator, and not marked @Public() or as a panel route, is refused by the scopes guard.
 */
export function Scopes(...scopes: Scope[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPES, scopes),
    ApiOAuth2(scopes, OAUTH2_SCHEME),
    ApiResponse(problemResponse(401, 'Missing, invalid or expired token, or revoked credential (`invalid_token`).')),
    ApiResponse(
      problemResponse(
        403,
        `Token lacks a required scope (\`insufficient_scope\`; requires: ${scopes.join(', ')}), or the selected account is not allowed (\`account_not_allowed\`).`,
      ),
    ),
    ApiResponse(problemResponse(429, 'Rate limit exceeded (`rate_limited`); honour `Retry-After`.')),
  );
}

/** Documents the account-selection header for routes that work inside one tenant. */
export const ApiTenantHeader = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    ApiHeader({
      name: 'X-Service-Account-ID',
      required: false,
      description:
        'Selects the account (tenant) the request works in. Required when the credential is assigned to more than one active account.',
      schema: { type: 'string', format: 'uuid' },
    }),
    ApiResponse(problemResponse(400, 'Bad request: `validation_failed`, or `account_selection_required` when the credential has several accounts and no X-Service-Account-ID was sent.')),
  );

/** The route works across the credential's allow-list rather than inside one selected tenant. */
export const TenantFree = (): MethodDecorator & ClassDecorator => SetMetadata(TENANT_FREE, true);

export const CurrentAccount = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const accountId = context.switchToHttp().getRequest<AuthenticatedRequest>().accountId;
  if (!accountId) throw new Error('CurrentAccount used on a route without a tenant');
  return accountId;
});

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a public route');
  return principal;
});
