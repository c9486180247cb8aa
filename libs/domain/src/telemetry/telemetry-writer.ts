import type { EntityManager } from 'typeorm';
import { pgArray } from './pg-array';
import type { TelemetryPoint } from './telemetry-point';

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
 * recorded_at travels as epoch milliseconds (exact in float8): no ISO formatting or timestamp
 * parsing per row. Nothing comes back per row: when fewer rows were inserted than sent (duplicates
 * of stored points, or repeated within the batch, where the first one wins), the positions of the
 * inserted rows come back as one array, computed only then.
 */
const INSERT_POINTS = `
  WITH inserted AS (
    INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
    SELECT u.device_id, u.lifecycle_id, 'epoch'::timestamptz + u.recorded_ms * interval '1 millisecond',
           u.latitude, u.longitude, u.temperature, u.humidity, u.light, u.shock, u.battery
      FROM unnest($1::uuid[], $2::uuid[], $3::float8[], $4::float8[], $5::float8[], $6::real[], $7::real[], $8::real[], $9::real[], $10::real[])
           AS u(device_id, lifecycle_id, recorded_ms, latitude, longitude, temperature, humidity, light, shock, battery)
    ON CONFLICT (device_id, recorded_at) DO NOTHING
    RETURNING device_id, recorded_at)
  SELECT CASE WHEN (SELECT count(*) FROM inserted) = $11::int THEN NULL
         ELSE (SELECT coalesce(array_agg(f.position ORDER BY f.position), '{}')
                 FROM (SELECT min(k.position)::int AS position
                         FROM unnest($1::uuid[], $3::float8[]) WITH ORDINALITY AS k(device_id, recorded_ms, position)
                         JOIN inserted i ON i.device_id = k.device_id AND i.recorded_at = 'epoch'::timestamptz + k.recorded_ms * interval '1 millisecond'
                        GROUP BY k.device_id, k.recorded_ms) f)
         END AS inserted_positions`;

/**
 * One multi-row INSERT for the whole batch (arrays unnested server-side), idempotent per
 * (device, recorded_at); `lifecycleIds[i]` is the lifecycle of `rows[i]`. Returns null when every
 * row was inserted, otherwise the positions (0-based) of the rows that were; the others were duplicates.
 */
export async function insertPoints(manager: EntityManager, rows: readonly TelemetryPoint[], lifecycleIds: readonly string[]): Promise<ReadonlySet<number> | null> {
  if (rows.length === 0) return null;
  const result = (await manager.query(INSERT_POINTS, [...insertColumns(rows, lifecycleIds), rows.length])) as Array<{ inserted_positions: number[] | null }>;
  const positions = result[0].inserted_positions;
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
export async function advanceStatus(manager: EntityManager, pointsByLifecycle: ReadonlyMap<string, readonly TelemetryPoint[]>): Promise<void> {
  const changes: StatusChange[] = [];
  for (const [lifecycleId, points] of pointsByLifecycle) if (points.length > 0) changes.push(latestOf(lifecycleId, points));
  if (changes.length === 0) return;
  await manager.query(
    `UPDATE device_lifecycles l SET
        last_seen_at = GREATEST(l.last_seen_at, u.seen_at),
        battery = CASE WHEN u.battery_at IS NOT NULL AND (l.battery_at IS NULL OR u.battery_at > l.battery_at) THEN u.battery ELSE l.battery END,
        battery_at = GREATEST(l.battery_at, u.battery_at),
        latitude = CASE WHEN u.location_at IS NOT NULL AND (l.location_at IS NULL OR u.location_at > l.location_at) THEN u.latitude ELSE l.latitude END,
        longitude = CASE WHEN u.location_at IS NOT NULL AND (l.location_at IS NULL OR u.location_at > l.location_at) THEN u.longitude ELSE l.longitude END,
        location_at = GREATEST(l.location_at, u.location_at)
       FROM unnest($1::uuid[], $2::timestamptz[], $3::real[], $4::timestamptz[], $5::float8[], $6::float8[], $7::timestamptz[])
            AS u(id, seen_at, battery, battery_at, latitude, longitude, location_at)
      WHERE l.id = u.id`,
    [
      pgArray(changes.map((c) => c.lifecycleId)),
      pgArray(changes.map((c) => isoOrNull(c.seenMs))),
      pgArray(changes.map((c) => c.battery)),
      pgArray(changes.map((c) => isoOrNull(c.batteryMs))),
      pgArray(changes.map((c) => c.latitude)),
      pgArray(changes.map((c) => c.longitude)),
      pgArray(changes.map((c) => isoOrNull(c.locationMs))),
    ],
  );
}
