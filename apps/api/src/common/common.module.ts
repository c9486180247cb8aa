import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { Paginator } from './paginator';
import { ApiLimitStore } from './rate-limits/api-limit-store';
import { RateLimits } from './rate-limits/rate-limits';

/** Paging, idempotency and the rate limits (people-facing pages; the API's own store): used by every resource module. */
@Global()
@Module({
  providers: [Paginator, IdempotencyRepository, IdempotencyInterceptor, RateLimits, ApiLimitStore],
  exports: [Paginator, IdempotencyRepository, IdempotencyInterceptor, RateLimits, ApiLimitStore],
})
export class CommonModule {}
