import { Column, Entity } from 'typeorm';
import { AddressedTenantEntity } from './tenant-entity';

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
export class Receiver extends AddressedTenantEntity {
  @Column() name: string;
  @Column({ name: 'contact_name', type: 'text', nullable: true }) contactName: string | null;
  @Column({ name: 'contact_email', type: 'text', nullable: true }) contactEmail: string | null;
  @Column({ name: 'contact_phone', type: 'text', nullable: true }) contactPhone: string | null;
  @Column({ name: 'notification_emails', type: 'text', array: true }) notificationEmails: string[];
  @Column({ name: 'delivery_parties', type: 'jsonb' }) deliveryParties: DeliveryParty[];
}
