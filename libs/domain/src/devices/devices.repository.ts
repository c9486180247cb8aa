import type { DataSource, EntityManager } from 'typeorm';
import { sql, type Db } from '@app/database/sql';
import type { AccountId, KeysetPage, TimeAndId } from '@app/vocabulary';
import type { Sensors, Thresholds } from './device-settings';
import { DEVICE_QUERIES as Q } from './devices.queries';

/** A device as its current owner sees it: hardware facts plus the current lifecycle. */
export interface DeviceRow {
  id: string;
  serial_number: string;
  model: string;
  hardware_revision: string | null;
  firmware_version: string | null;
  lifecycle_id: string;
  owned_since: Date;
  label: string | null;
  measurement_interval_s: number;
  transmission_interval_s: number;
  sensors: unknown;
  thresholds: unknown;
  alert_preset_id: string | null;
  last_seen_at: Date | null;
  battery: number | null;
  battery_at: Date | null;
  latitude: number | null;
  longitude: number | null;
  location_at: Date | null;
}

export interface MaintenanceRow {
  id: string;
  device_id: string;
  kind: string;
  performed_at: Date;
  /** Exact (microsecond) text form of performed_at, for the keyset cursor. */
  performed_at_key: string;
  summary: string;
  details: string | null;
  next_due_at: Date | null;
  created_at: Date;
}

export interface SettingsChange {
  measurement_interval_s: number;
  transmission_interval_s: number;
  sensors: Sensors;
  thresholds: Thresholds;
  alert_preset_id: string | null;
}

/** A keyset page: up to `limit` rows (the caller asks for one more) after the position `after`. */
/** The api's device reads and writes, every one within the caller's account. */
export class DevicesRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(accountId: AccountId, page: KeysetPage<string>): Promise<DeviceRow[]> {
    return sql.rows<DeviceRow>(this.dataSource, Q.list, [accountId, page.limit + 1, page.after]);
  }

  /** Inside a transaction when `db` is given; otherwise straight on the pool (every device route reads it). */
  find(accountId: AccountId, deviceId: string, db?: EntityManager): Promise<DeviceRow | null> {
    return sql.first<DeviceRow>(db ?? this.dataSource, Q.find, [accountId, deviceId]);
  }

  /** The same, locking the lifecycle until the transaction ends (read-modify-write of settings). */
  findForUpdate(db: EntityManager, accountId: AccountId, deviceId: string): Promise<DeviceRow | null> {
    return sql.first<DeviceRow>(db, Q.findForUpdate, [accountId, deviceId]);
  }

  async updateLabel(accountId: AccountId, lifecycleId: string, label: string | null): Promise<void> {
    await sql.run(this.dataSource, Q.updateLabel, [accountId, lifecycleId, label]);
  }

  async updateSettings(db: EntityManager, accountId: AccountId, lifecycleId: string, settings: SettingsChange): Promise<void> {
    await sql.run(db, Q.updateSettings, [
      accountId,
      lifecycleId,
      settings.measurement_interval_s,
      settings.transmission_interval_s,
      JSON.stringify(settings.sensors),
      JSON.stringify(settings.thresholds),
      settings.alert_preset_id,
    ]);
  }

  /**
   * Records of the device's current lifecycle, and platform-side records made between owners
   * (no lifecycle); newest first. Cost columns are never selected.
   */
  maintenance(accountId: AccountId, device: DeviceRow, page: KeysetPage<TimeAndId>): Promise<MaintenanceRow[]> {
    const keyset = page.after ? [page.after.at, page.after.id] : [null, null];
    return sql.rows<MaintenanceRow>(this.dataSource, Q.maintenance, [accountId, device.id, device.lifecycle_id, page.limit + 1, ...keyset]);
  }
}

// --- Alert presets (read for device settings and thresholds) ---

export async function alertPresetRowExists(db: Db, accountId: AccountId, presetId: string): Promise<boolean> {
  return (await sql.first(db, Q.alertPresetExists, [accountId, presetId])) !== null;
}

/** The presets given as (account, id) pairs, each only within its own account, as jsonb rows. */
export function presetRowsOfAccounts(
  db: Db,
  presets: ReadonlyArray<{ accountId: AccountId; presetId: string }>,
): Promise<Array<{ id: string; preset: Record<string, unknown> }>> {
  return sql.rows(db, Q.presetsOfAccounts, [presets.map((p) => p.accountId), presets.map((p) => p.presetId)]);
}

// --- Platform-side onboarding: registration, approval, transfer ---

export interface NewDevice {
  id: string;
  serial_number: string;
  lifecycle_id: string;
  imei: string;
  sim_iccid: string;
  firmware_key: string;
}

/** The devices, and their first lifecycles owned by the account. */
export async function insertRegisteredDevices(db: Db, accountId: AccountId, devices: readonly NewDevice[], model: string, approved: boolean): Promise<void> {
  await sql.run(db, Q.insertDevices, [
    devices.map((d) => d.id),
    devices.map((d) => d.serial_number),
    model,
    approved,
    devices.map((d) => d.imei),
    devices.map((d) => d.sim_iccid),
    devices.map((d) => d.firmware_key),
  ]);
  await sql.run(db, Q.insertFirstLifecycles, [accountId, devices.map((d) => d.lifecycle_id), devices.map((d) => d.id)]);
}

/** Approves a device that is not deleted; false when there is none. */
export async function approveDeviceRow(db: Db, deviceId: string): Promise<boolean> {
  return (await sql.count(db, Q.approve, [deviceId])) > 0;
}

/** Locks a device that is not deleted until the transaction ends; false when there is none. */
export async function lockDeviceRow(db: Db, deviceId: string): Promise<boolean> {
  return (await sql.first(db, Q.lockDevice, [deviceId])) !== null;
}

/** The device's current lifecycle (any owner), locked until the transaction ends, or null. */
export function lockCurrentLifecycle(db: Db, deviceId: string): Promise<{ id: string; account_id: AccountId } | null> {
  return sql.first(db, Q.lockCurrentLifecycle, [deviceId]);
}

/** Ends the lifecycle now (the transaction's start); returns that instant. */
export async function endLifecycle(db: Db, lifecycleId: string): Promise<Date> {
  const row = await sql.first<{ ended_at: Date }>(db, Q.endLifecycle, [lifecycleId]);
  if (!row) throw new Error(`lifecycle ${lifecycleId} vanished`);
  return row.ended_at;
}

export async function startLifecycle(db: Db, accountId: AccountId, lifecycleId: string, deviceId: string): Promise<void> {
  await sql.run(db, Q.startLifecycle, [accountId, lifecycleId, deviceId]);
}

// --- Ingestion ---

export interface IngestLifecycleRow {
  id: string;
  device_id: string;
  account_id: AccountId;
  started_at: Date;
  ended_at: Date | null;
  sensors: unknown;
  thresholds: unknown;
  alert_preset_id: string | null;
  latitude: number | null;
  longitude: number | null;
  location_at: Date | null;
}

/** Every lifecycle of these devices (approved, not deleted) in id order; locked (FOR NO KEY UPDATE) unless `lock` is false. */
export function ingestLifecycleRows(db: Db, deviceIds: readonly string[], lock = true): Promise<IngestLifecycleRow[]> {
  return sql.rows<IngestLifecycleRow>(db, lock ? Q.lockIngestLifecycles : Q.ingestLifecycles, [deviceIds]);
}

/** Per lifecycle (pg array literals, one element per lifecycle): the newest instant, battery reading and location. */
export interface LifecycleStatusColumns {
  ids: string;
  seenAt: string;
  battery: string;
  batteryAt: string;
  latitude: string;
  longitude: string;
  locationAt: string;
}

/** Moves each lifecycle's status forward only: one statement for the whole batch. */
export async function advanceLifecycleStatus(db: Db, columns: LifecycleStatusColumns): Promise<void> {
  await sql.run(db, Q.advanceStatus, [columns.ids, columns.seenAt, columns.battery, columns.batteryAt, columns.latitude, columns.longitude, columns.locationAt]);
}

