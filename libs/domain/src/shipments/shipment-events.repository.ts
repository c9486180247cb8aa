import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import type { ShipmentEventKind } from './shipment-status';
import { SHIPMENT_QUERIES as Q } from './shipments.queries';

// A shipment's history (shipment_events): arrivals, departures, completion.

export interface ShipmentEventInput {
  id: string;
  shipmentId: number;
  kind: ShipmentEventKind;
  locationId: string | null;
  deviceId: string | null;
  recordedAt: Date;
}

export async function insertShipmentEvent(db: Db, accountId: AccountId, event: ShipmentEventInput): Promise<void> {
  await sql.run(db, Q.insertEvent, [accountId, event.id, event.shipmentId, event.kind, event.locationId, event.deviceId, event.recordedAt.toISOString()]);
}

export interface ShipmentEventRow {
  kind: ShipmentEventKind;
  location_id: string | null;
  device_id: string | null;
  recorded_at: Date;
}

/** The latest `limit` events, newest first. */
export function latestShipmentEvents(db: Db, accountId: AccountId, shipmentId: number, limit: number): Promise<ShipmentEventRow[]> {
  return sql.rows<ShipmentEventRow>(db, Q.latestEvents, [accountId, shipmentId, limit]);
}

/** Locations the shipment entered or arrived at. */
export async function reachedLocationIds(db: Db, accountId: AccountId, shipmentId: number): Promise<string[]> {
  return (await sql.rows<{ location_id: string }>(db, Q.reachedLocations, [accountId, shipmentId])).map((row) => row.location_id);
}
