import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/api-error';
import { InsufficientScopeError } from './auth-errors';
import { apiGuardsStandAside, REQUIRED_SCOPES } from './auth.decorators';
import type { AuthenticatedRequest } from './principal';

/**
 * Third global guard (after token and rate limit): all declared scopes are required; a route that
 * declares neither `@Scopes(...)`, `@Public()` nor panel access is denied.
 */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (apiGuardsStandAside(this.reflector, context)) return true;
    const required = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_SCOPES, [context.getHandler(), context.getClass()]);
    if (!required || required.length === 0) {
      throw new ApiError(403, 'route_not_authorized', 'Forbidden', 'This route declares no scope and is refused.');
    }
    const granted = context.switchToHttp().getRequest<AuthenticatedRequest>().principal?.scopes;
    if (!granted || required.some((scope) => !granted.has(scope))) throw new InsufficientScopeError(required);
    return true;
  }
}
