import type { Db } from '@app/database/sql';
import { lifecyclesForIngest, toSensors, toThresholds, type Sensors, type Thresholds } from '../devices';
import type { GeoPosition } from './geofence';
import type { AccountId } from '@app/vocabulary';

/** A device lifecycle as ingestion needs it, locked for the duration of the batch. */
export interface IngestLifecycle {
  id: string;
  deviceId: string;
  accountId: AccountId;
  startedAt: Date;
  endedAt: Date | null;
  sensors: Sensors;
  thresholds: Thresholds;
  alertPresetId: string | null;
  /** Last known location before this batch (geofence transitions start from it). */
  location: (GeoPosition & { at: Date }) | null;
}

/**
 * Every lifecycle of these devices (approved, not deleted), locked in id order so that
 * concurrent batches touching the same devices queue instead of deadlocking, and so that a
 * transfer cannot end a lifecycle while its points are being stored.
 */
export async function lockLifecycles(manager: Db, deviceIds: string[], lock = true): Promise<IngestLifecycle[]> {
  const rows = await lifecyclesForIngest(manager, deviceIds, lock);
  return rows.map((row) => ({
    id: row.id,
    deviceId: row.device_id,
    accountId: row.account_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    sensors: toSensors(row.sensors),
    thresholds: toThresholds(row.thresholds),
    alertPresetId: row.alert_preset_id,
    location:
      row.latitude !== null && row.longitude !== null && row.location_at
        ? { latitude: row.latitude, longitude: row.longitude, at: row.location_at }
        : null,
  }));
}

/** Lifecycles by device, to find the one a point belongs to without scanning them all. */
export function byDevice(lifecycles: readonly IngestLifecycle[]): Map<string, IngestLifecycle[]> {
  const map = new Map<string, IngestLifecycle[]>();
  for (const lifecycle of lifecycles) {
    const list = map.get(lifecycle.deviceId);
    if (list) list.push(lifecycle);
    else map.set(lifecycle.deviceId, [lifecycle]);
  }
  return map;
}

/** The lifecycle in which a point was recorded: started_at <= recorded_at < ended_at. */
export function lifecycleAt(lifecyclesOfDevice: readonly IngestLifecycle[] | undefined, atMs: number): IngestLifecycle | null {
  if (!lifecyclesOfDevice) return null;
  for (const l of lifecyclesOfDevice) {
    if (l.startedAt.getTime() <= atMs && (l.endedAt === null || atMs < l.endedAt.getTime())) return l;
  }
  return null;
}
