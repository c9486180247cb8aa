import { Column, Entity } from 'typeorm';
import { TenantEntity } from './tenant-entity';

export const DELIVERY_PARTY_ROLES = ['consignee', 'notify_party', 'customs_broker', 'pickup_contact', 'other'] as const;
export type DeliveryPartyRole = (typeof DELIVERY_PARTY_ROLES)[number];

/** Kept inside the receiver (jsonb): read and replaced with it, never addressed on its own. */
export interface DeliveryParty {
  name: string;
  role: DeliveryPartyRole;
  email: string | null;
  phone: string | null;
}

@Entity('receivers')
export class Receiver extends TenantEntity {
  @Column() name: string;
  @Column({ name: 'address_line1', type: 'text', nullable: true }) addressLine1: string | null;
  @Column({ name: 'address_line2', type: 'text', nullable: true }) addressLine2: string | null;
  @Column({ type: 'text', nullable: true }) city: string | null;
  @Column({ type: 'text', nullable: true }) region: string | null;
  @Column({ name: 'postal_code', type: 'text', nullable: true }) postalCode: string | null;
  @Column({ type: 'text', nullable: true }) country: string | null;
  @Column({ name: 'contact_name', type: 'text', nullable: true }) contactName: string | null;
  @Column({ name: 'contact_email', type: 'text', nullable: true }) contactEmail: string | null;
  @Column({ name: 'contact_phone', type: 'text', nullable: true }) contactPhone: string | null;
  @Column({ name: 'notification_emails', type: 'text', array: true }) notificationEmails: string[];
  @Column({ name: 'delivery_parties', type: 'jsonb' }) deliveryParties: DeliveryParty[];
}
