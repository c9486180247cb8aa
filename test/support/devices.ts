import type { DataSource } from 'typeorm';
import { detachDeviceLifecycle, defaultIngestCollaborators, DeviceAdminService, TelemetryIngestService, type RegisteredDevice } from '@app/domain';
import type { AccountId } from '@app/vocabulary';

/** Registers devices owned by the account (approved unless told otherwise). */
export async function registerDevices(dataSource: DataSource, accountId: AccountId, count = 1, approved = true): Promise<RegisteredDevice[]> {
  return new DeviceAdminService(dataSource, detachDeviceLifecycle).register({ accountId, count, approved });
}

export async function registerDevice(dataSource: DataSource, accountId: AccountId, approved = true): Promise<RegisteredDevice> {
  const [device] = await registerDevices(dataSource, accountId, 1, approved);
  return device;
}

/** Moves the start of the device's current lifecycle back, so that older points belong to it. */
export async function backdateLifecycle(dataSource: DataSource, deviceId: string, startedAt: Date): Promise<void> {
  await dataSource.query(`UPDATE device_lifecycles SET started_at = $2 WHERE device_id = $1 AND ended_at IS NULL`, [deviceId, startedAt]);
}

export async function setThresholds(dataSource: DataSource, deviceId: string, thresholds: Record<string, number | null>): Promise<void> {
  await dataSource.query(`UPDATE device_lifecycles SET thresholds = $2::jsonb WHERE device_id = $1 AND ended_at IS NULL`, [
    deviceId,
    JSON.stringify(thresholds),
  ]);
}

export const minutesAgo = (minutes: number, from = Date.now()): Date => new Date(Math.floor(from / 60_000) * 60_000 - minutes * 60_000);

export function point(deviceId: string, at: Date, values: Record<string, number | null> = {}): Record<string, unknown> {
  return { device_id: deviceId, recorded_at: at.toISOString(), ...values };
}

export const ingestService = (dataSource: DataSource): TelemetryIngestService => new TelemetryIngestService(dataSource, defaultIngestCollaborators());
