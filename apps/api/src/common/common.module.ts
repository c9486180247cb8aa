import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { Paginator } from './paginator';
import { RateLimits } from './rate-limits/rate-limits';

/** Paging, idempotency and the rate limits of people-facing pages: used by every resource module. */
@Global()
@Module({
  providers: [Paginator, IdempotencyStore, IdempotencyInterceptor, RateLimits],
  exports: [Paginator, IdempotencyStore, IdempotencyInterceptor, RateLimits],
})
export class CommonModule {}
