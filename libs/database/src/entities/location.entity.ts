import { Column, Entity } from 'typeorm';
import type { Geofence } from '@app/vocabulary';
import { AddressedTenantEntity } from './tenant-entity';

export const LOCATION_KINDS = ['warehouse', 'port', 'airport', 'customer_site', 'distribution_center', 'other'] as const;
export type LocationKind = (typeof LOCATION_KINDS)[number];

export interface GeofenceTriggerSettings {
  record_event: boolean;
  raise_alarm: boolean;
  alarm_severity: 'INFO' | 'WARNING' | 'CRITICAL';
}

export interface EntryTriggerSettings extends GeofenceTriggerSettings {
  mark_arrival: boolean;
  complete_shipment: boolean;
}

/** What the telemetry pipeline does when a tracked device enters or leaves the geofence. */
export interface LocationAutomation {
  on_entry: EntryTriggerSettings;
  on_exit: GeofenceTriggerSettings;
}

@Entity('locations')
export class Location extends AddressedTenantEntity {
  @Column() name: string;
  @Column({ type: 'text' }) kind: LocationKind;
  @Column({ type: 'jsonb' }) geofence: Geofence;
  @Column({ type: 'jsonb' }) automation: LocationAutomation;
}
