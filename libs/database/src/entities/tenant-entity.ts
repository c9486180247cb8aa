import { Column } from 'typeorm';
import { UuidEntity } from './base';
import type { AccountId } from '@app/vocabulary';

/** A record owned by one customer account; every read of it filters on `account_id`. */
export abstract class TenantEntity extends UuidEntity {
  @Column({ name: 'account_id', type: 'uuid' }) accountId: AccountId;
}

/** A tenant record with a postal address (locations, receivers). */
export abstract class AddressedTenantEntity extends TenantEntity {
  @Column({ name: 'address_line1', type: 'text', nullable: true }) addressLine1: string | null;
  @Column({ name: 'address_line2', type: 'text', nullable: true }) addressLine2: string | null;
  @Column({ type: 'text', nullable: true }) city: string | null;
  @Column({ type: 'text', nullable: true }) region: string | null;
  @Column({ name: 'postal_code', type: 'text', nullable: true }) postalCode: string | null;
  @Column({ type: 'text', nullable: true }) country: string | null;
}
