import { Column } from 'typeorm';
import { UuidEntity } from './base';

/** A record owned by one customer account; every read of it filters on `account_id`. */
export abstract class TenantEntity extends UuidEntity {
  @Column({ name: 'account_id', type: 'uuid' }) accountId: string;
}
