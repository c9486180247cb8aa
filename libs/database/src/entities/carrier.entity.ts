import { Column, Entity } from 'typeorm';
import { TenantEntity } from './tenant-entity';

export const TRANSPORT_MODES = ['road', 'sea', 'air', 'rail', 'multimodal'] as const;
export type TransportMode = (typeof TRANSPORT_MODES)[number];

@Entity('carriers')
export class Carrier extends TenantEntity {
  @Column() name: string;
  @Column({ type: 'text' }) mode: TransportMode;
  @Column({ name: 'contact_name', type: 'text', nullable: true }) contactName: string | null;
  @Column({ name: 'contact_email', type: 'text', nullable: true }) contactEmail: string | null;
  @Column({ name: 'contact_phone', type: 'text', nullable: true }) contactPhone: string | null;
  @Column({ type: 'text', nullable: true }) scac: string | null;
  @Column({ name: 'iata_code', type: 'text', nullable: true }) iataCode: string | null;
  @Column({ type: 'text', nullable: true }) mmsi: string | null;
  @Column({ type: 'text', nullable: true }) imo: string | null;
}
