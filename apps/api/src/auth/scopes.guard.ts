import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError, InsufficientScopeError } from '../common/api-error';
import { PUBLIC_ROUTE, REQUIRED_SCOPES } from './auth.decorators';
import type { AuthenticatedRequest } from './principal';

/** Second global guard: all declared scopes are required; an undeclared route is denied. */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const required = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_SCOPES, targets);
    if (!required || required.length === 0) {
      throw new ApiError(403, 'route_not_authorized', 'Forbidden', 'This route declares no scope and is refused.');
    }
    const granted = context.switchToHttp().getRequest<AuthenticatedRequest>().principal?.scopes;
    if (!granted || required.some((scope) => !granted.has(scope))) throw new InsufficientScopeError(required);
    return true;
  }
}
