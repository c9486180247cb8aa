import type { Db } from '@app/database/sql';
import { advanceLifecycles } from '../devices';
import { pgArray } from './pg-array';
import type { TelemetryPoint } from './telemetry-point';
import { insertTelemetryRows } from './telemetry.repository';

/** The array literals of the INSERT's ten columns, built in one pass over the rows. */
function insertColumns(rows: readonly TelemetryPoint[], lifecycleIds: readonly string[]): string[] {
  const item = (value: number | null): string => (value === null ? 'NULL' : String(value));
  let devices = '{';
  let lifecycles = '{';
  let recorded = '{';
  let latitude = '{';
  let longitude = '{';
  let temperature = '{';
  let humidity = '{';
  let light = '{';
  let shock = '{';
  let battery = '{';
  for (let i = 0; i < rows.length; i++) {
    const p = rows[i];
    const sep = i === 0 ? '' : ',';
    devices += sep + p.deviceId;
    lifecycles += sep + lifecycleIds[i];
    recorded += sep + String(p.recordedMs);
    latitude += sep + item(p.latitude);
    longitude += sep + item(p.longitude);
    temperature += sep + item(p.temperature);
    humidity += sep + item(p.humidity);
    light += sep + item(p.light);
    shock += sep + item(p.shock);
    battery += sep + item(p.battery);
  }
  return [devices, lifecycles, recorded, latitude, longitude, temperature, humidity, light, shock, battery].map((literal) => `${literal}}`);
}

/**
 * One multi-row INSERT for the whole batch (arrays unnested server-side), idempotent per
 * (device, recorded_at); `lifecycleIds[i]` is the lifecycle of `rows[i]`. Returns null when every
 * row was inserted, otherwise the positions (0-based) of the rows that were; the others were duplicates.
 */
export async function insertPoints(manager: Db, rows: readonly TelemetryPoint[], lifecycleIds: readonly string[]): Promise<ReadonlySet<number> | null> {
  if (rows.length === 0) return null;
  const positions = await insertTelemetryRows(manager, insertColumns(rows, lifecycleIds), rows.length);
  return positions === null ? null : new Set(positions.map((position) => position - 1));
}

/** The newest instant, battery reading and location among a lifecycle's new points. */
interface StatusChange {
  lifecycleId: string;
  seenMs: number;
  battery: number | null;
  batteryMs: number;
  latitude: number | null;
  longitude: number | null;
  locationMs: number;
}

function latestOf(lifecycleId: string, points: readonly TelemetryPoint[]): StatusChange {
  const change: StatusChange = { lifecycleId, seenMs: -Infinity, battery: null, batteryMs: -Infinity, latitude: null, longitude: null, locationMs: -Infinity };
  for (const p of points) {
    const at = p.recordedMs;
    if (at > change.seenMs) change.seenMs = at;
    if (p.battery !== null && at > change.batteryMs) {
      change.battery = p.battery;
      change.batteryMs = at;
    }
    if (p.latitude !== null && p.longitude !== null && at > change.locationMs) {
      change.latitude = p.latitude;
      change.longitude = p.longitude;
      change.locationMs = at;
    }
  }
  return change;
}

const isoOrNull = (ms: number): string | null => (ms === -Infinity ? null : new Date(ms).toISOString());

/**
 * Moves each lifecycle's status forward only: a late point never replaces a newer battery
 * reading or location, nor moves last_seen_at back. One statement for the whole batch;
 * `pointsByLifecycle` holds the points inserted by the batch.
 */
export async function advanceStatus(manager: Db, pointsByLifecycle: ReadonlyMap<string, readonly TelemetryPoint[]>): Promise<void> {
  const changes: StatusChange[] = [];
  for (const [lifecycleId, points] of pointsByLifecycle) if (points.length > 0) changes.push(latestOf(lifecycleId, points));
  if (changes.length === 0) return;
  await advanceLifecycles(manager, {
    ids: pgArray(changes.map((c) => c.lifecycleId)),
    seenAt: pgArray(changes.map((c) => isoOrNull(c.seenMs))),
    battery: pgArray(changes.map((c) => c.battery)),
    batteryAt: pgArray(changes.map((c) => isoOrNull(c.batteryMs))),
    latitude: pgArray(changes.map((c) => c.latitude)),
    longitude: pgArray(changes.map((c) => c.longitude)),
    locationAt: pgArray(changes.map((c) => isoOrNull(c.locationMs))),
  });
}
