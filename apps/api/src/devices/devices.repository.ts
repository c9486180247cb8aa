import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { poolQuery } from '@app/database/pool-query';
import type { Sensors, Thresholds } from '@app/domain';
import type { PageRequest } from '../common/paginator';
import type { AccountId } from '@app/vocabulary';

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

/**
 * Visible devices are approved, not deleted, and in a lifecycle of the tenant that has not
 * ended. Every query carries that condition, with the account id first.
 */
const VISIBLE_DEVICES = `
  SELECT d.id, d.serial_number, d.model, d.hardware_revision, d.firmware_version,
         l.id AS lifecycle_id, l.started_at AS owned_since, l.label, l.measurement_interval_s, l.transmission_interval_s,
         l.sensors, l.thresholds, l.alert_preset_id, l.last_seen_at, l.battery, l.battery_at, l.latitude, l.longitude, l.location_at
    FROM device_lifecycles l
    JOIN devices d ON d.id = l.device_id
   WHERE l.account_id = $1 AND l.ended_at IS NULL AND d.approval_status = 'approved' AND d.deleted_at IS NULL`;

@Injectable()
export class DevicesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(accountId: AccountId, page: PageRequest): Promise<DeviceRow[]> {
    const after = page.after?.[0];
    const params: unknown[] = [accountId, page.limit + 1];
    let keyset = '';
    if (typeof after === 'string') {
      params.push(after);
      keyset = 'AND d.id > $3';
    }
    return poolQuery<DeviceRow>(this.dataSource, `${VISIBLE_DEVICES} ${keyset} ORDER BY d.id LIMIT $2`, params);
  }

  /** Inside a transaction when `db` is given; otherwise straight on the pool (every device route reads it). */
  async find(accountId: AccountId, deviceId: string, db?: EntityManager): Promise<DeviceRow | null> {
    const sql = `${VISIBLE_DEVICES} AND d.id = $2`;
    const rows = db ? ((await db.query(sql, [accountId, deviceId])) as DeviceRow[]) : await poolQuery<DeviceRow>(this.dataSource, sql, [accountId, deviceId]);
    return rows[0] ?? null;
  }

  /** The same, locking the lifecycle until the transaction ends (read-modify-write of settings). */
  async findForUpdate(db: EntityManager, accountId: AccountId, deviceId: string): Promise<DeviceRow | null> {
    const rows = (await db.query(`${VISIBLE_DEVICES} AND d.id = $2 FOR NO KEY UPDATE OF l`, [accountId, deviceId])) as DeviceRow[];
    return rows[0] ?? null;
  }

  async updateLabel(accountId: AccountId, lifecycleId: string, label: string | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE device_lifecycles SET label = $3, updated_at = now() WHERE account_id = $1 AND id = $2 AND ended_at IS NULL`,
      [accountId, lifecycleId, label],
    );
  }

  async updateSettings(db: EntityManager, accountId: AccountId, lifecycleId: string, settings: SettingsChange): Promise<void> {
    await db.query(
      `UPDATE device_lifecycles
          SET measurement_interval_s = $3, transmission_interval_s = $4, sensors = $5::jsonb, thresholds = $6::jsonb,
              alert_preset_id = $7, updated_at = now()
        WHERE account_id = $1 AND id = $2 AND ended_at IS NULL`,
      [
        accountId,
        lifecycleId,
        settings.measurement_interval_s,
        settings.transmission_interval_s,
        JSON.stringify(settings.sensors),
        JSON.stringify(settings.thresholds),
        settings.alert_preset_id,
      ],
    );
  }

  /**
   * Records of the device's current lifecycle, and platform-side records made between owners
   * (no lifecycle); newest first. Cost columns are never selected.
   */
  async maintenance(accountId: AccountId, device: DeviceRow, page: PageRequest): Promise<MaintenanceRow[]> {
    const params: unknown[] = [accountId, device.id, device.lifecycle_id, page.limit + 1];
    let keyset = '';
    const [performedAt, id] = page.after ?? [];
    if (typeof performedAt === 'string' && typeof id === 'string') {
      params.push(performedAt, id);
      keyset = 'AND (m.performed_at, m.id) < ($5::timestamptz, $6::uuid)';
    }
    return (await this.dataSource.query(
      `SELECT m.id, m.device_id, m.kind, m.performed_at, m.performed_at::text AS performed_at_key, m.summary, m.details, m.next_due_at, m.created_at
         FROM device_maintenance_records m
         JOIN device_lifecycles l ON l.id = $3 AND l.account_id = $1 AND l.device_id = m.device_id
        WHERE m.device_id = $2 AND (m.lifecycle_id IS NULL OR m.lifecycle_id = $3) ${keyset}
        ORDER BY m.performed_at DESC, m.id DESC
        LIMIT $4`,
      params,
    )) as MaintenanceRow[];
  }
}
