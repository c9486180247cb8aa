import { applyDecorators, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../../auth/principal';
import { ApiError } from '../api-error';
import { type LimitName, RateLimits } from './rate-limits';

type ApiAccountLimit = Extract<LimitName, 'user-invitations-per-account'>;
const API_ACCOUNT_LIMIT = 'rate-limit:api-account';

/**
 * A per-account budget for API operations that make the service do work for the tenant beyond
 * a database write (e.g. each user invitation sends an e-mail). An interceptor, not a guard: it
 * needs the account the tenant guard selected, and placed *inside* @Idempotent() it is reached only
 * by a first execution — a replay returns its stored answer, and a 429 is never stored (the
 * idempotency interceptor releases the key), so retrying with the same key after Retry-After works.
 */
@Injectable()
export class AccountRateLimitInterceptor implements NestInterceptor {
  constructor(
    private readonly limits: RateLimits,
    private readonly reflector: Reflector,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const name = this.reflector.get<ApiAccountLimit | undefined>(API_ACCOUNT_LIMIT, context.getHandler());
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!name || !request.accountId) throw new Error('AccountRateLimit on a route without a limit name or a selected account');
    const outcome = await this.limits.consume(name, request.accountId);
    if (!outcome.allowed) {
      const policy = this.limits.policy(name);
      throw new ApiError(
        429,
        'rate_limited',
        'Too many requests',
        `This account may do this ${policy.points} times per ${policy.windowSeconds} seconds; retry after ${outcome.retryAfterSeconds} seconds.`,
        undefined,
        { 'Retry-After': String(outcome.retryAfterSeconds) },
      );
    }
    return next.handle();
  }
}

/**
 * Limits an API operation per account. Put it *above* `@Idempotent()` so that it runs inside the
 * idempotency interceptor (decorators apply bottom-up; interceptors run in the order applied).
 */
export function AccountRateLimit(name: ApiAccountLimit): MethodDecorator {
  return applyDecorators(SetMetadata(API_ACCOUNT_LIMIT, name), UseInterceptors(AccountRateLimitInterceptor));
}
