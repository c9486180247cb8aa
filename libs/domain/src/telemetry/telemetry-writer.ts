import type { EntityManager } from 'typeorm';
import type { TelemetryPoint } from './telemetry-point';

export interface StoredPoint extends TelemetryPoint {
  lifecycleId: string;
}

const key = (deviceId: string, at: Date): string => `${deviceId}|${at.getTime()}`;

/**
 * One multi-row INSERT for the whole batch (arrays unnested server-side), idempotent per
 * (device, recorded_at). Returns the points actually inserted; the others were duplicates.
 */
export async function insertPoints(manager: EntityManager, points: readonly StoredPoint[]): Promise<StoredPoint[]> {
  if (points.length === 0) return [];
  const ordered = [...points].sort((a, b) => (a.deviceId === b.deviceId ? a.recordedAt.getTime() - b.recordedAt.getTime() : a.deviceId < b.deviceId ? -1 : 1));
  const column = <T>(pick: (p: StoredPoint) => T): T[] => ordered.map(pick);
  const inserted = (await manager.query(
    `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::float8[], $5::float8[], $6::real[], $7::real[], $8::real[], $9::real[], $10::real[])
     ON CONFLICT (device_id, recorded_at) DO NOTHING
     RETURNING device_id, recorded_at`,
    [
      column((p) => p.deviceId),
      column((p) => p.lifecycleId),
      column((p) => p.recordedAt.toISOString()),
      column((p) => p.latitude),
      column((p) => p.longitude),
      column((p) => p.temperature),
      column((p) => p.humidity),
      column((p) => p.light),
      column((p) => p.shock),
      column((p) => p.battery),
    ],
  )) as Array<{ device_id: string; recorded_at: Date }>;
  const insertedKeys = new Set(inserted.map((row) => key(row.device_id, row.recorded_at)));
  return ordered.filter((p) => insertedKeys.has(key(p.deviceId, p.recordedAt)));
}

interface StatusChange {
  lifecycleId: string;
  seenAt: Date;
  battery: { value: number; at: Date } | null;
  location: { latitude: number; longitude: number; at: Date } | null;
}

function latestPerLifecycle(points: readonly StoredPoint[]): StatusChange[] {
  const changes = new Map<string, StatusChange>();
  for (const p of points) {
    const change = changes.get(p.lifecycleId) ?? { lifecycleId: p.lifecycleId, seenAt: p.recordedAt, battery: null, location: null };
    if (p.recordedAt > change.seenAt) change.seenAt = p.recordedAt;
    if (p.battery !== null && (!change.battery || p.recordedAt > change.battery.at)) change.battery = { value: p.battery, at: p.recordedAt };
    if (p.latitude !== null && p.longitude !== null && (!change.location || p.recordedAt > change.location.at)) {
      change.location = { latitude: p.latitude, longitude: p.longitude, at: p.recordedAt };
    }
    changes.set(p.lifecycleId, change);
  }
  return [...changes.values()];
}

/**
 * Moves each lifecycle's status forward only: a late point never replaces a newer battery
 * reading or location, nor moves last_seen_at back. One statement for the whole batch.
 */
export async function advanceStatus(manager: EntityManager, points: readonly StoredPoint[]): Promise<void> {
  const changes = latestPerLifecycle(points);
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
      changes.map((c) => c.lifecycleId),
      changes.map((c) => c.seenAt.toISOString()),
      changes.map((c) => c.battery?.value ?? null),
      changes.map((c) => c.battery?.at.toISOString() ?? null),
      changes.map((c) => c.location?.latitude ?? null),
      changes.map((c) => c.location?.longitude ?? null),
      changes.map((c) => c.location?.at.toISOString() ?? null),
    ],
  );
}
