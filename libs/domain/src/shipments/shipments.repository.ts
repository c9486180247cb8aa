import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import type { ShipmentStatus } from './shipment-status';
import { SHIPMENT_QUERIES as Q } from './shipments.queries';

// Shipments themselves (the shipments table), and the reads a shipment write checks against.

/** The writable columns of a shipment after POST or PUT, in SHIPMENT_FIELD_COLUMNS order. */
export interface ShipmentColumns {
  reference: string;
  name: string;
  templateId: string | null;
  originLocationId: string;
  destinationLocationId: string;
  carrierId: string | null;
  receiverId: string | null;
  alertPresetId: string | null;
  plannedDepartureAt: string | null;
  plannedArrivalAt: string | null;
  /** Stored as jsonb. */
  legs: unknown;
}

const columnParams = (f: ShipmentColumns): unknown[] => [
  f.reference,
  f.name,
  f.templateId,
  f.originLocationId,
  f.destinationLocationId,
  f.carrierId,
  f.receiverId,
  f.alertPresetId,
  f.plannedDepartureAt,
  f.plannedArrivalAt,
  JSON.stringify(f.legs),
];

/** The visible (not deleted) shipment of the tenant, or null. */
/** A `shipments` row with the names of what it references. */
export interface ShipmentRow {
  id: number;
  account_id: AccountId;
  reference: string;
  name: string;
  status: ShipmentStatus;
  template_id: string | null;
  origin_location_id: string;
  origin_name: string | null;
  destination_location_id: string;
  destination_name: string | null;
  receiver_id: string | null;
  receiver_name: string | null;
  carrier_id: string | null;
  carrier_name: string | null;
  alert_preset_id: string | null;
  alert_preset_name: string | null;
  planned_departure_at: Date | null;
  planned_arrival_at: Date | null;
  transport_legs: unknown;
  started_at: Date;
  arrived_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  device_ids: string[];
}

export function findShipmentRow(db: Db, accountId: AccountId, shipmentId: number): Promise<ShipmentRow | null> {
  return sql.first<ShipmentRow>(db, Q.row, [accountId, shipmentId]);
}

export interface ShipmentListFilter {
  status?: ShipmentStatus | null;
  /** A LIKE pattern (escaped) matched against reference, name, receiver, carrier and device labels. */
  searchPattern?: string | null;
  /** Keyset: ids below this one. */
  beforeId?: number | null;
  limit: number;
}

/** Newest first (ids grow). */
export function listShipmentRows(db: Db, accountId: AccountId, filter: ShipmentListFilter): Promise<ShipmentRow[]> {
  return sql.rows<ShipmentRow>(db, Q.list, [accountId, filter.limit, filter.status ?? null, filter.searchPattern ?? null, filter.beforeId ?? null]);
}

export async function insertShipment(db: Db, accountId: AccountId, columns: ShipmentColumns, startedAt: Date): Promise<number> {
  const row = await sql.first<{ id: number }>(db, Q.insert, [accountId, ...columnParams(columns), startedAt.toISOString()]);
  if (!row) throw new Error('INSERT INTO shipments returned no id');
  return row.id;
}

export async function replaceShipment(db: Db, accountId: AccountId, shipmentId: number, columns: ShipmentColumns): Promise<void> {
  await sql.run(db, Q.replace, [accountId, shipmentId, ...columnParams(columns)]);
}

export interface LockedShipment {
  status: ShipmentStatus;
  template_id: string | null;
  destination_location_id: string;
  arrived_at: Date | null;
}

/** Locks the visible shipment FOR UPDATE (automation and API never act on a stale status); null when there is none. */
export function lockShipment(db: Db, accountId: AccountId, shipmentId: number): Promise<LockedShipment | null> {
  return sql.first<LockedShipment>(db, Q.lockForUpdate, [accountId, shipmentId]);
}

/** Key-share locks the visible shipment until commit (it cannot be deleted meanwhile); false when there is none. */
export async function keyShareShipment(db: Db, accountId: AccountId, shipmentId: number): Promise<boolean> {
  return (await sql.rows(db, Q.lockKeyShare, [accountId, shipmentId])).length > 0;
}

export async function markShipmentDeleted(db: Db, accountId: AccountId, shipmentId: number, at: Date): Promise<void> {
  await sql.run(db, Q.markDeleted, [accountId, shipmentId, at.toISOString()]);
}

export async function markShipmentCompleted(db: Db, accountId: AccountId, shipmentId: number, at: Date, by: string): Promise<void> {
  await sql.run(db, Q.markCompleted, [accountId, shipmentId, at.toISOString(), by]);
}

export async function markShipmentArrived(db: Db, accountId: AccountId, shipmentId: number, at: Date): Promise<void> {
  await sql.run(db, Q.markArrived, [accountId, shipmentId, at.toISOString()]);
}

export interface RouteLocationRow {
  id: string;
  name: string;
  geofence: unknown;
  automation: unknown;
}

/** Every location the shipment's route names: origin, destination and each leg's ends. */
export function routeLocations(db: Db, accountId: AccountId, shipmentId: number): Promise<RouteLocationRow[]> {
  return sql.rows<RouteLocationRow>(db, Q.routeLocations, [accountId, shipmentId]);
}

export function locationAutomations(db: Db, accountId: AccountId, locationIds: readonly string[]): Promise<Array<{ id: string; automation: unknown }>> {
  return sql.rows(db, Q.locationAutomation, [accountId, locationIds]);
}

export interface ShipmentTemplateRow {
  origin_location_id: string;
  destination_location_id: string;
  carrier_id: string | null;
  receiver_id: string | null;
  alert_preset_id: string | null;
  transport_legs: unknown;
}

/** The template, share-locked like any other reference (a concurrent delete waits and then sees the shipment); null when unknown. */
export function lockShipmentTemplate(db: Db, accountId: AccountId, templateId: string): Promise<ShipmentTemplateRow | null> {
  return sql.first<ShipmentTemplateRow>(db, Q.template, [accountId, templateId]);
}

/** Shipment columns that may hold a catalogue record's id. */
export const SHIPMENT_REFERENCE_COLUMNS = ['template_id', 'origin_location_id', 'destination_location_id', 'carrier_id', 'receiver_id', 'alert_preset_id'] as const;
export type ShipmentReferenceColumn = (typeof SHIPMENT_REFERENCE_COLUMNS)[number];
/** Keys of a transport leg that may hold a catalogue record's id. */
export const SHIPMENT_LEG_REFERENCE_KEYS = ['carrier_id', 'from_location_id', 'to_location_id'] as const;
export type ShipmentLegReferenceKey = (typeof SHIPMENT_LEG_REFERENCE_KEYS)[number];

/** Whether an ACTIVE shipment holds `id` in one of `columns`, or in one of `legKeys` of a transport leg. */
export async function usedByActiveShipment(
  db: Db,
  accountId: AccountId,
  id: string,
  columns: readonly ShipmentReferenceColumn[],
  legKeys: readonly ShipmentLegReferenceKey[],
): Promise<boolean> {
  const column = (name: ShipmentReferenceColumn): string | null => (columns.includes(name) ? id : null);
  const leg = (key: ShipmentLegReferenceKey): string | null => (legKeys.includes(key) ? JSON.stringify([{ [key]: id }]) : null);
  const row = await sql.first<{ used: boolean }>(db, Q.usedByActiveShipment, [
    accountId,
    ...SHIPMENT_REFERENCE_COLUMNS.map(column),
    ...SHIPMENT_LEG_REFERENCE_KEYS.map(leg),
  ]);
  return row?.used === true;
}

/** An alert preset named by a device's current settings (its open lifecycle in this account). */
export async function presetInDeviceSettings(db: Db, accountId: AccountId, presetId: string): Promise<boolean> {
  const row = await sql.first<{ used: boolean }>(db, Q.presetInDeviceSettings, [accountId, presetId]);
  return row?.used === true;
}

/** Unresolved alarms raised while a device travelled in the shipment. */
export async function openShipmentAlarms(db: Db, accountId: AccountId, shipmentId: number): Promise<number> {
  const row = await sql.first<{ open: number }>(db, Q.openAlarms, [accountId, shipmentId]);
  return row?.open ?? 0;
}
