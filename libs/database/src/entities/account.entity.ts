import { Column, Entity } from 'typeorm';
import { UuidEntity } from './base';

export const ACCOUNT_KINDS = ['customer', 'demo', 'internal'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];
export const ACCOUNT_STATUSES = ['active', 'suspended', 'closed'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** A customer company (tenant). Status, kind and subscription are managed by the platform only. */
@Entity('accounts')
export class Account extends UuidEntity {
  @Column() name: string;
  @Column({ type: 'text' }) kind: AccountKind;
  @Column({ type: 'text' }) status: AccountStatus;
  @Column({ name: 'subscription_plan', type: 'text' }) subscriptionPlan: string;
  @Column({ name: 'subscription_valid_until', type: 'timestamptz', nullable: true }) subscriptionValidUntil: Date | null;
  @Column({ name: 'legal_name', type: 'text', nullable: true }) legalName: string | null;
  @Column({ name: 'tax_id', type: 'text', nullable: true }) taxId: string | null;
  @Column({ name: 'registration_number', type: 'text', nullable: true }) registrationNumber: string | null;
  @Column({ name: 'contact_name', type: 'text', nullable: true }) contactName: string | null;
  @Column({ name: 'contact_email', type: 'text', nullable: true }) contactEmail: string | null;
  @Column({ name: 'contact_phone', type: 'text', nullable: true }) contactPhone: string | null;
  @Column({ type: 'text', nullable: true }) website: string | null;
  @Column({ name: 'address_line1', type: 'text', nullable: true }) addressLine1: string | null;
  @Column({ name: 'address_line2', type: 'text', nullable: true }) addressLine2: string | null;
  @Column({ type: 'text', nullable: true }) city: string | null;
  @Column({ name: 'postal_code', type: 'text', nullable: true }) postalCode: string | null;
  @Column({ type: 'text', nullable: true }) country: string | null;
  @Column({ type: 'text', nullable: true }) timezone: string | null;
}
