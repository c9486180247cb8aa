import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerStorageService } from '@nestjs/throttler';
import type { Response } from 'express';
import type { AppConfig } from '@app/config';
import { ApiError } from '../common/api-error';
import { APP_CONFIG } from '../config/config.module';
import type { AuthenticatedRequest } from './principal';

const WINDOW_MS = 60_000;
export const TOKEN_ENDPOINT_LIMIT = 'rate-limit:token-endpoint';

/**
 * Fixed-window limits: per credential on API calls, per client IP on the token endpoint. Runs
 * after the token guard so it knows the credential. Counters live in this process (see README for
 * several replicas). Headers follow the IETF RateLimit header fields draft.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly storage: ThrottlerStorageService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    let policy: string;
    let key: string;
    let limit: number;
    if (this.reflector.getAllAndOverride<boolean>(TOKEN_ENDPOINT_LIMIT, targets)) {
      policy = 'token-per-ip';
      key = `ip:${request.ip ?? 'unknown'}`;
      limit = this.config.tokenRateLimitPerMinute;
    } else if (request.principal) {
      policy = 'per-credential';
      key = `credential:${request.principal.credentialId}`;
      limit = this.config.rateLimitPerMinute;
    } else {
      return true; // public routes other than the token endpoint are not limited
    }
    const record = await this.storage.increment(key, WINDOW_MS, limit, 0, policy);
    const resetSeconds = Math.max(1, Math.ceil(record.timeToExpire));
    const remaining = Math.max(0, limit - record.totalHits);
    response.setHeader('RateLimit-Policy', `"${policy}";q=${limit};w=${WINDOW_MS / 1000}`);
    response.setHeader('RateLimit', `"${policy}";r=${remaining};t=${resetSeconds}`);
    if (record.totalHits > limit) {
      throw new ApiError(
        429,
        'rate_limited',
        'Too many requests',
        `Rate limit of ${limit} requests per minute exceeded; retry after ${resetSeconds} seconds.`,
        undefined,
        { 'Retry-After': String(resetSeconds) },
      );
    }
    return true;
  }
}
