import type { Scope } from '@app/vocabulary';
import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiHeader, ApiOAuth2, ApiResponse } from '@nestjs/swagger';
import { problemResponse } from '../common/openapi-responses';
import type { AuthenticatedRequest, Principal } from './principal';

export const PUBLIC_ROUTE = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';
export const TENANT_FREE = 'auth:tenant-free';
export const OAUTH2_SCHEME = 'oauth2';

/** The route needs no token (token exchange, API index, schema, health). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/**
 * Declares the scopes a route requires (all of them) and documents them. A route without this
 * decorator, and not marked @Public(), is refused by the scopes guard.
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
