import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { Paginator } from './paginator';

/** Paging and idempotency: used by every resource module. */
@Global()
@Module({
  providers: [Paginator, IdempotencyStore, IdempotencyInterceptor],
  exports: [Paginator, IdempotencyStore, IdempotencyInterceptor],
})
export class CommonModule {}
