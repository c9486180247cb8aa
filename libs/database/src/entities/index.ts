import { Account } from './account.entity';
import { ApiCredential } from './api-credential.entity';
import { IdempotencyRecord } from './idempotency-record.entity';

export * from './base';
export * from './account.entity';
export * from './api-credential.entity';
export * from './idempotency-record.entity';

/** Every entity of the service; each feature adds its own here. */
export const ENTITIES = [Account, ApiCredential, IdempotencyRecord];
