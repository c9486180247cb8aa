import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { AppConfig } from '@app/config';
import { ApiError } from '../common/api-error';
import { ApiLimitStore } from '../common/rate-limits/api-limit-store';
import { clientAddressKey } from '../common/rate-limits/client-address';
import { APP_CONFIG } from '../config/config.module';
import type { AuthenticatedRequest } from './principal';

const WINDOW_SECONDS = 60;
export const TOKEN_ENDPOINT_LIMIT = 'rate-limit:token-endpoint';

interface Policy {
  name: string;
  limit: number;
  limiter: RateLimiterAbstract;
}

/**
 * Fixed-window limits (rate-limiter-flexible): per credential on API calls, per client address on
 * the token endpoint (an IPv6 /64 counts as one address, see clientAddressKey). Second global
 * guard (token → rate limit → scopes → tenant): after the token guard, so it knows the credential,
 * and before the scopes guard, so calls that guard refuses count too. Web panel routes carry no API
 * credential: the panel's session guard applies the panel's own limits. Counters live in Redis,
 * shared by every replica, with REDIS_URL, and in this process without it (see ApiLimitStore).
 * Headers follow the IETF RateLimit header fields draft.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly perCredential: Policy;
  private readonly tokenPerIp: Policy;

  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) config: AppConfig,
    store: ApiLimitStore,
  ) {
    const policy = (name: string, limit: number): Policy => ({
      name,
      limit,
      limiter: store.limiter(name, limit, WINDOW_SECONDS),
    });
    this.perCredential = policy('per-credential', config.rateLimitPerMinute);
    this.tokenPerIp = policy('token-per-ip', config.tokenRateLimitPerMinute);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    const isTokenEndpoint = this.reflector.getAllAndOverride<boolean>(TOKEN_ENDPOINT_LIMIT, [context.getHandler(), context.getClass()]);
    let policy: Policy;
    let key: string;
    if (isTokenEndpoint) {
      policy = this.tokenPerIp;
      key = clientAddressKey(request.ip); // an IPv6 /64 is one client
    } else if (request.principal) {
      policy = this.perCredential;
      key = request.principal.credentialId;
    } else {
      return true; // public and panel routes (no API credential) other than the token endpoint are not limited here
    }
    let result: RateLimiterRes;
    let limited = false;
    try {
      result = await policy.limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      result = rejection;
      limited = true;
    }
    const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    response.setHeader('RateLimit-Policy', `"${policy.name}";q=${policy.limit};w=${WINDOW_SECONDS}`);
    response.setHeader('RateLimit', `"${policy.name}";r=${Math.max(0, result.remainingPoints)};t=${resetSeconds}`);
    if (limited) {
      throw new ApiError(
        429,
        'rate_limited',
        'Too many requests',
        `Rate limit of ${policy.limit} requests per ${WINDOW_SECONDS} seconds exceeded; retry after ${resetSeconds} seconds.`,
        undefined,
        { 'Retry-After': String(resetSeconds) },
      );
    }
    return true;
  }
}
