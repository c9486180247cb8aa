import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { Paginator } from './paginator';
import { RateLimits } from './rate-limits/rate-limits';

/** Paging, idempotency and the rate limits of people-facing pages: used by every resource module. */
@Global()
@Module({
  providers: [Paginator, IdempotencyRepository, IdempotencyInterceptor, RateLimits],
  exports: [Paginator, IdempotencyRepository, IdempotencyInterceptor, RateLimits],
})
export class CommonModule {}
