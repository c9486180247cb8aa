import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { SHIPMENT_QUERIES as Q } from './shipments.queries';

// Which devices a shipment tracks (shipment_devices): attaching, ending and reading attachments.

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

/** A device changes owner: its attachment of the ending lifecycle ends now (the previous owner's shipment loses it). */
export async function detachLifecycle(db: Db, lifecycleId: string): Promise<void> {
  await sql.run(db, Q.detachLifecycle, [lifecycleId]);
}
