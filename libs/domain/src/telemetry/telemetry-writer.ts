import type { EntityManager } from 'typeorm';
import { pgArray } from './pg-array';
import type { TelemetryPoint } from './telemetry-point';

export interface StoredPoint extends TelemetryPoint {
  lifecycleId: string;
}

const key = (deviceId: string, atMs: number): string => `${deviceId}|${atMs}`;

/**
 * One multi-row INSERT for the whole batch (arrays unnested server-side), idempotent per
 * (device, recorded_at). Returns the points actually inserted; the others were duplicates.
 */
export async function insertPoints(manager: EntityManager, points: readonly StoredPoint[]): Promise<StoredPoint[]> {
  if (points.length === 0) return [];
  const ordered = [...points].sort((a, b) => (a.deviceId === b.deviceId ? a.recordedAt.getTime() - b.recordedAt.getTime() : a.deviceId < b.deviceId ? -1 : 1));
  const column = (pick: (p: StoredPoint) => string | number | null): string => pgArray(ordered.map(pick));
  // recorded_at travels both ways as epoch milliseconds (exact in float8): no ISO formatting or
  // timestamp parsing per row.
  const inserted = (await manager.query(
    `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
     SELECT u.device_id, u.lifecycle_id, 'epoch'::timestamptz + u.recorded_ms * interval '1 millisecond',
            u.latitude, u.longitude, u.temperature, u.humidity, u.light, u.shock, u.battery
       FROM unnest($1::uuid[], $2::uuid[], $3::float8[], $4::float8[], $5::float8[], $6::real[], $7::real[], $8::real[], $9::real[], $10::real[])
            AS u(device_id, lifecycle_id, recorded_ms, latitude, longitude, temperature, humidity, light, shock, battery)
     ON CONFLICT (device_id, recorded_at) DO NOTHING
     RETURNING device_id, round(extract(epoch FROM recorded_at) * 1000)::float8 AS recorded_ms`,
    [
      column((p) => p.deviceId),
      column((p) => p.lifecycleId),
      column((p) => p.recordedAt.getTime()),
      column((p) => p.latitude),
      column((p) => p.longitude),
      column((p) => p.temperature),
      column((p) => p.humidity),
      column((p) => p.light),
      column((p) => p.shock),
      column((p) => p.battery),
    ],
  )) as Array<{ device_id: string; recorded_ms: number }>;
  // Each input row inserts at most once: as many rows back as sent means all of them.
  if (inserted.length === ordered.length) return ordered;
  const insertedKeys = new Set(inserted.map((row) => key(row.device_id, row.recorded_ms)));
  return ordered.filter((p) => insertedKeys.has(key(p.deviceId, p.recordedAt.getTime())));
}

interface StatusChange {
  lifecycleId: string;
  seenAt: Date;
  battery: { value: number; at: Date } | null;
  location: { latitude: number; longitude: number; at: Date } | null;
}

/** The latest of each kind per lifecycle; instants compared as numbers (a Date comparison converts both sides). */
function latestPerLifecycle(points: readonly StoredPoint[]): StatusChange[] {
  const changes = new Map<string, StatusChange & { seenMs: number; batteryMs: number; locationMs: number }>();
  for (const p of points) {
    const at = p.recordedAt.getTime();
    let change = changes.get(p.lifecycleId);
    if (!change) {
      change = { lifecycleId: p.lifecycleId, seenAt: p.recordedAt, battery: null, location: null, seenMs: at, batteryMs: -Infinity, locationMs: -Infinity };
      changes.set(p.lifecycleId, change);
    }
    if (at > change.seenMs) {
      change.seenAt = p.recordedAt;
      change.seenMs = at;
    }
    if (p.battery !== null && at > change.batteryMs) {
      change.battery = { value: p.battery, at: p.recordedAt };
      change.batteryMs = at;
    }
    if (p.latitude !== null && p.longitude !== null && at > change.locationMs) {
      change.location = { latitude: p.latitude, longitude: p.longitude, at: p.recordedAt };
      change.locationMs = at;
    }
  }
  return [...changes.values()].map(({ lifecycleId, seenAt, battery, location }) => ({ lifecycleId, seenAt, battery, location }));
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
      pgArray(changes.map((c) => c.lifecycleId)),
      pgArray(changes.map((c) => c.seenAt.toISOString())),
      pgArray(changes.map((c) => c.battery?.value ?? null)),
      pgArray(changes.map((c) => c.battery?.at.toISOString() ?? null)),
      pgArray(changes.map((c) => c.location?.latitude ?? null)),
      pgArray(changes.map((c) => c.location?.longitude ?? null)),
      pgArray(changes.map((c) => c.location?.at.toISOString() ?? null)),
    ],
  );
}
