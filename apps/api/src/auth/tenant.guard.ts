import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/api-error';
import { apiGuardsStandAside, TENANT_FREE } from './auth.decorators';
import type { AuthenticatedRequest } from './principal';
import { toAccountId } from '@app/vocabulary';

export const ACCOUNT_HEADER = 'x-service-account-id';

export const accountNotAllowed = (): ApiError =>
  new ApiError(
    403,
    'account_not_allowed',
    'Account not allowed',
    'X-Service-Account-ID names an account that is not an active account on this credential’s allow-list.',
  );

/**
 * Fourth and last global guard (after token, rate limit and scopes): selects the tenant. One
 * usable account is implied; several need X-Service-Account-ID; a named account must be an active
 * customer account on the allow-list. `@TenantFree()` routes need no selection (a sent header
 * still selects, and is still checked).
 */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (apiGuardsStandAside(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = request.principal;
    if (!principal) return false;
    const header = request.header(ACCOUNT_HEADER)?.trim();
    if (header) {
      if (!principal.accountIds.includes(header.toLowerCase())) throw accountNotAllowed();
      request.accountId = toAccountId(header.toLowerCase());
      return true;
    }
    if (this.reflector.getAllAndOverride<boolean>(TENANT_FREE, [context.getHandler(), context.getClass()])) return true;
    if (principal.accountIds.length === 1) {
      request.accountId = toAccountId(principal.accountIds[0]);
      return true;
    }
    if (principal.accountIds.length === 0) throw accountNotAllowed();
    throw new ApiError(
      400,
      'account_selection_required',
      'Account selection required',
      'This credential is assigned to several accounts: send X-Service-Account-ID to select one.',
    );
  }
}
