import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import type { ShipmentEventKind, ShipmentRow, ShipmentStatus } from './shipment-record';
import { SHIPMENT_QUERIES as Q } from './shipments.queries';
import { trackedPointsParams, type TrackedPointsScope } from './tracked-points';

/**
 * Every statement of the shipments family (shipments, shipment_devices, shipment_events,
 * shipment_shares) runs here; the services and the domain code call these functions.
 */

// --- shipments

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

// --- shipment_devices

export async function activeShipmentOfDevice(db: Db, accountId: AccountId, deviceId: string): Promise<number | null> {
  const row = await sql.first<{ shipment_id: number }>(db, Q.activeShipmentOfDevice, [accountId, deviceId]);
  return row?.shipment_id ?? null;
}

/** device id → active shipment id, for those (account, device) pairs of an ingestion batch that have one. */
export async function activeShipmentsOfDevices(db: Db, devices: ReadonlyArray<{ accountId: AccountId; deviceId: string }>): Promise<Map<string, number>> {
  const rows = await sql.rows<{ device_id: string; shipment_id: number }>(db, Q.activeShipmentsOfDevices, [
    devices.map((d) => d.accountId),
    devices.map((d) => d.deviceId),
  ]);
  return new Map(rows.map((row) => [row.device_id, row.shipment_id]));
}

export async function attachedDeviceIds(db: Db, accountId: AccountId, shipmentId: number): Promise<string[]> {
  return (await sql.rows<{ device_id: string }>(db, Q.attachedDeviceIds, [accountId, shipmentId])).map((row) => row.device_id);
}

/** Whether the device was ever attached to the shipment. */
export async function deviceInShipment(db: Db, accountId: AccountId, shipmentId: number, deviceId: string): Promise<boolean> {
  return (await sql.rows(db, Q.deviceInShipment, [accountId, shipmentId, deviceId])).length > 0;
}

/** The current lifecycles of those devices visible to the account (approved, not deleted, owned now), key-share locked until commit. */
export function visibleDeviceLifecycles(db: Db, accountId: AccountId, deviceIds: readonly string[]): Promise<Array<{ device_id: string; lifecycle_id: string }>> {
  return sql.rows(db, Q.visibleLifecycles, [accountId, deviceIds]);
}

/** Those of the devices attached to an active shipment other than `shipmentId`. */
export async function devicesInOtherShipments(db: Db, accountId: AccountId, deviceIds: readonly string[], shipmentId: number | null): Promise<string[]> {
  return (await sql.rows<{ device_id: string }>(db, Q.devicesInOtherShipments, [accountId, deviceIds, shipmentId])).map((row) => row.device_id);
}

/** Attaches each device (device id → lifecycle id) from `at`. */
export async function insertAttachments(db: Db, accountId: AccountId, shipmentId: number, lifecycles: Map<string, string>, at: Date): Promise<void> {
  await sql.run(db, Q.attach, [accountId, shipmentId, [...lifecycles.keys()], [...lifecycles.values()], at.toISOString()]);
}

/** Ends the open attachments of the devices (or of all), at `at` (never before an attachment began). */
export async function endAttachments(db: Db, accountId: AccountId, shipmentId: number, deviceIds: readonly string[] | 'all', at: Date): Promise<void> {
  await sql.run(db, Q.detach, [accountId, shipmentId, deviceIds === 'all' ? null : deviceIds, at.toISOString()]);
}

/** Completion: every open attachment ends exactly at the completion moment. */
export async function closeAttachments(db: Db, accountId: AccountId, shipmentId: number, at: Date): Promise<void> {
  await sql.run(db, Q.closeAttachments, [accountId, shipmentId, at.toISOString()]);
}

export interface ShipmentDeviceRow {
  device_id: string;
  serial_number: string;
  label: string | null;
  attached_at: Date;
  detached_at: Date | null;
}

export function shipmentDeviceRows(db: Db, accountId: AccountId, shipmentId: number): Promise<ShipmentDeviceRow[]> {
  return sql.rows<ShipmentDeviceRow>(db, Q.devices, [accountId, shipmentId]);
}

/** The settings (thresholds, alert preset) of each attachment's lifecycle, in attachment order. */
export function shipmentDeviceSettings(db: Db, accountId: AccountId, shipmentId: number): Promise<Array<{ thresholds: unknown; alert_preset_id: string | null }>> {
  return sql.rows(db, Q.deviceSettings, [accountId, shipmentId]);
}

// --- tracked points

export interface TrackedSummaryRow {
  point_count: number;
  min: number | null;
  max: number | null;
  avg: number | null;
}

/** Count and temperature min/max/avg of the tracked points. */
export async function trackedSummary(db: Db, scope: TrackedPointsScope): Promise<TrackedSummaryRow> {
  const row = await sql.first<TrackedSummaryRow>(db, Q.trackedSummary, trackedPointsParams(scope));
  return row ?? { point_count: 0, min: null, max: null, avg: null };
}

/** The latest tracked point with a position, or null. */
export function lastTrackedFix(db: Db, scope: TrackedPointsScope): Promise<{ latitude: number; longitude: number; recorded_at: Date } | null> {
  return sql.first(db, Q.lastTrackedFix, trackedPointsParams(scope));
}

/** Up to `limit` tracked points after the (recorded_at, device_id) keyset position, in that order. */
export function trackedPoints<T>(db: Db, scope: TrackedPointsScope, after: { recordedAt: string; deviceId: string } | null, limit: number): Promise<T[]> {
  return sql.rows<T>(db, Q.trackedPoints, [...trackedPointsParams(scope), after?.recordedAt ?? null, after?.deviceId ?? null, limit]);
}

/** Every bucket of `widthMs` from `first` to `last` (empty ones included) over the tracked points. */
export function trackedBuckets<T>(db: Db, scope: TrackedPointsScope, widthMs: number, window: { first: Date; last: Date }): Promise<T[]> {
  return sql.rows<T>(db, Q.trackedBuckets, [...trackedPointsParams(scope), `${widthMs / 1000} seconds`, window.first.toISOString(), window.last.toISOString()]);
}

// --- shipment_events

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

// --- shipment_shares

export interface ShareRow {
  token_hash: Buffer;
  /** Null for a share created before links were derivable: its URL cannot be shown. */
  link_nonce: Buffer | null;
  expires_at: Date;
  max_views: number;
  view_count: number;
  created_at: Date;
  revoked_at: Date | null;
}

export function findShare(db: Db, accountId: AccountId, shipmentId: number): Promise<ShareRow | null> {
  return sql.first<ShareRow>(db, Q.share, [accountId, shipmentId]);
}

export interface ShareInput {
  tokenHash: Buffer;
  nonce: Buffer;
  expiresAt: Date;
  maxViews: number;
  now: Date;
}

/** Creates the share, or refreshes it: a new token (the old link dies at once) and the view count back to 0. */
export async function putShare(db: Db, accountId: AccountId, shipmentId: number, share: ShareInput): Promise<ShareRow> {
  const row = await sql.first<ShareRow>(db, Q.putShare, [
    accountId,
    shipmentId,
    share.tokenHash,
    share.nonce,
    share.expiresAt.toISOString(),
    share.maxViews,
    share.now.toISOString(),
  ]);
  if (!row) throw new Error('INSERT INTO shipment_shares returned no row');
  return row;
}

/** The link stops working at once; revoking a revoked or missing link changes nothing. */
export async function revokeShare(db: Db, accountId: AccountId, shipmentId: number): Promise<void> {
  await sql.run(db, Q.revokeShare, [accountId, shipmentId]);
}

/** A working share link's shipment (the account id as stored: the caller decides the tenant). */
export interface ShareHitRow {
  account_id: string;
  shipment_id: number;
  expires_at: Date;
}

/** The shipment behind a working link, counting one view when `countView` (the conditional UPDATE is the whole check); null otherwise. */
export function viewShare(db: Db, tokenHash: Buffer, countView: boolean): Promise<ShareHitRow | null> {
  return sql.first<ShareHitRow>(db, countView ? Q.countShareView : Q.peekShareView, [tokenHash]);
}

/** The share a token hash belongs to, or null. */
export function shareByTokenHash(db: Db, tokenHash: Buffer): Promise<{ account_id: string; shipment_id: number; link_nonce: Buffer | null } | null> {
  return sql.first(db, Q.shareByTokenHash, [tokenHash]);
}

// The demo seed: history written directly (no outbox events), idempotent under an advisory lock.
export async function lockDemoShipmentSeed(db: Db): Promise<void> {
  await sql.run(db, Q.demoSeedLock);
}

export async function demoShipmentByReference(db: Db, accountId: string, reference: string): Promise<number | null> {
  return (await sql.first<{ id: number }>(db, Q.demoShipmentByReference, [accountId, reference]))?.id ?? null;
}

export async function seedDemoShipment(db: Db, values: unknown[]): Promise<number> {
  const row = await sql.first<{ id: number }>(db, Q.seedDemoShipment, values);
  if (!row) throw new Error('demo shipment insert returned no id');
  return row.id;
}

export async function seedDemoAttachments(db: Db, values: [shipmentId: number, accountId: string, deviceIds: readonly string[], attachedAt: string, detachedAt: string | null]): Promise<void> {
  await sql.run(db, Q.seedDemoAttachments, values);
}

export async function seedDemoShare(db: Db, values: [shipmentId: number, accountId: string, token: string, nonce: Buffer, expiresAt: string, createdAt: string]): Promise<void> {
  await sql.run(db, Q.seedDemoShare, values);
}

/** A device changes owner: its attachment of the ending lifecycle ends now (the previous owner's shipment loses it). */
export async function detachLifecycle(db: Db, lifecycleId: string): Promise<void> {
  await sql.run(db, Q.detachLifecycle, [lifecycleId]);
}
