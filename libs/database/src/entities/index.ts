import { Account } from './account.entity';
import { ApiCredential } from './api-credential.entity';
import { IdempotencyRecord } from './idempotency-record.entity';
import { AlertPreset } from './alert-preset.entity';
import { Carrier } from './carrier.entity';
import { Location } from './location.entity';
import { Receiver } from './receiver.entity';
import { ShipmentTemplate } from './shipment-template.entity';
import { User } from './user.entity';
import { UserInvitation } from './user-invitation.entity';

export * from './base';
export * from './account.entity';
export * from './api-credential.entity';
export * from './idempotency-record.entity';
export * from './tenant-entity';
export * from './location.entity';
export * from './carrier.entity';
export * from './receiver.entity';
export * from './alert-preset.entity';
export * from './shipment-template.entity';
export * from './user.entity';
export * from './user-invitation.entity';

/** Every entity of the service; each feature adds its own here. */
export const ENTITIES = [
  Account,
  ApiCredential,
  IdempotencyRecord,
  Location,
  Carrier,
  Receiver,
  AlertPreset,
  ShipmentTemplate,
  User,
  UserInvitation,
];
