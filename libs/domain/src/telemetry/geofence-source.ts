import type { EntityManager } from 'typeorm';
import type { TrackedGeofence, GeoPosition } from './geofence';
import type { AccountId } from '@app/vocabulary';

export interface GeofenceContext {
  accountId: AccountId;
  deviceId: string;
  lifecycleId: string;
  /** From ActiveShipmentLookup: geofences usually matter only while the device travels. */
  shipmentId: number | null;
}

/**
 * The geofences ingestion evaluates for a device. The locations feature provides the real
 * implementation (the tenant's location geofences, per their automation settings); until it is
 * wired by the shipments family's ingest-wiring.ts, no device has any geofence.
 */
export interface GeofenceSource {
  geofencesFor(manager: EntityManager, context: GeofenceContext): Promise<TrackedGeofence[]>;
}

export const NO_GEOFENCES: GeofenceSource = {
  geofencesFor: () => Promise.resolve([]),
};

export interface GeofenceCrossing {
  context: GeofenceContext;
  geofence: TrackedGeofence;
  direction: 'entered' | 'exited';
  position: GeoPosition;
  recordedAt: Date;
}

/**
 * Told of every crossing, in the ingestion transaction: where the shipments feature records
 * arrivals and departures (and completes a shipment on arrival). Default: nothing.
 */
export interface GeofenceCrossingSink {
  record(manager: EntityManager, crossings: GeofenceCrossing[]): Promise<void>;
}

export const IGNORE_GEOFENCE_CROSSINGS: GeofenceCrossingSink = {
  record: () => Promise.resolve(),
};
