import { Column, Entity } from 'typeorm';
import type { TransportMode } from './carrier.entity';
import { TenantEntity } from './tenant-entity';

export interface TransportLeg {
  mode: TransportMode;
  carrier_id: string | null;
  vessel_mmsi: string | null;
  vessel_imo: string | null;
  from_location_id: string | null;
  to_location_id: string | null;
}

@Entity('shipment_templates')
export class ShipmentTemplate extends TenantEntity {
  @Column() name: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ name: 'origin_location_id', type: 'uuid' }) originLocationId: string;
  @Column({ name: 'destination_location_id', type: 'uuid' }) destinationLocationId: string;
  @Column({ name: 'carrier_id', type: 'uuid', nullable: true }) carrierId: string | null;
  @Column({ name: 'receiver_id', type: 'uuid', nullable: true }) receiverId: string | null;
  @Column({ name: 'alert_preset_id', type: 'uuid', nullable: true }) alertPresetId: string | null;
  @Column({ name: 'transport_legs', type: 'jsonb' }) transportLegs: TransportLeg[];
}
