import type { DataSource } from 'typeorm';
import { sql, type Db, type PlatformQuery, type TenantParams } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import type { PackedPoints } from './packed-points';
import type { Measurement } from './telemetry-point';
import { TELEMETRY_QUERIES as Q } from './telemetry.queries';

/** The device's current lifecycle inside the tenant: the only telemetry a request may read. */
export interface TelemetryScope {
  accountId: AccountId;
  deviceId: string;
  lifecycleId: string;
}

export interface PointRow {
  recorded_at: Date;
  temperature: number | null;
  humidity: number | null;
  light: number | null;
  shock: number | null;
  battery: number | null;
  latitude: number | null;
  longitude: number | null;
}

export type BucketRow = { bucket_start: Date; count: number } & {
  [K in `${Measurement}_${'min' | 'avg' | 'max'}`]: number | null;
};

/** The buckets of a bucketed read: starts of the first and last bucket, and the points aggregated ([from, to)). */
export interface BucketRange {
  first: Date;
  last: Date;
  from: Date;
  to: Date;
}

/** The api's telemetry reads, each within the device's current lifecycle inside the tenant. */
export class TelemetryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The api's page statement (packed) and its parameters: [from, to) after the keyset position, in time order. */
  pointsQuery(scope: TelemetryScope, from: Date, to: Date, after: Date | null, limit: number): { sql: string; params: unknown[] } {
    const params: unknown[] = [scope.accountId, scope.deviceId, scope.lifecycleId, from.toISOString(), to.toISOString(), limit];
    if (after) return { sql: Q.packedPointsAfter.text, params: [...params, after.toISOString()] };
    return { sql: Q.packedPoints.text, params };
  }

  /** Up to `limit` points of [from, to) after the keyset position, packed into one text value (packed-points.ts). */
  async packedPoints(scope: TelemetryScope, from: Date, to: Date, after: Date | null, limit: number): Promise<PackedPoints> {
    const range = [scope.accountId, scope.deviceId, scope.lifecycleId, from.toISOString(), to.toISOString(), limit] as const;
    const row = after
      ? await sql.first<PackedPoints>(this.dataSource, Q.packedPointsAfter, [...range, after.toISOString()])
      : await sql.first<PackedPoints>(this.dataSource, Q.packedPoints, range);
    return row ?? { count: 0, points: '' };
  }

  /** The bucket statement and its parameters (see buckets). */
  bucketsQuery(scope: TelemetryScope, widthMs: number, window: BucketRange): { sql: string; params: TenantParams } {
    const params: TenantParams = [
      scope.accountId,
      scope.deviceId,
      scope.lifecycleId,
      window.from.toISOString(),
      window.to.toISOString(),
      `${widthMs / 1000} seconds`,
      window.first.toISOString(),
      window.last.toISOString(),
    ];
    return { sql: Q.buckets.text, params };
  }

  /** Every bucket from `first` to `last` (empty ones included), aggregating points in [from, to). */
  buckets(scope: TelemetryScope, widthMs: number, window: BucketRange): Promise<BucketRow[]> {
    return sql.rows<BucketRow>(this.dataSource, Q.buckets, this.bucketsQuery(scope, widthMs, window).params);
  }
}

// --- Partitions ---

/** Creates the monthly partition holding `month` unless it exists (telemetry_ensure_partition). */
export async function ensureTelemetryPartition(db: Db, month: Date): Promise<void> {
  await sql.run(db, Q.ensurePartition, [month]);
}

// --- Ingestion ---

/**
 * One multi-row INSERT of the batch: `columns` are the array literals of device_id, lifecycle_id,
 * recorded_ms, latitude, longitude, temperature, humidity, light, shock and battery, `count` the
 * number of rows. Null when every row was inserted, otherwise the (1-based) positions of those that were.
 */
export async function insertTelemetryRows(db: Db, columns: readonly string[], count: number): Promise<number[] | null> {
  const row = await sql.first<{ inserted_positions: number[] | null }>(db, Q.insertPoints, [...columns, count]);
  return row?.inserted_positions ?? null;
}

/** The alarm types each of these lifecycles has unresolved. */
export function openAlarmTypeRows(db: Db, lifecycleIds: readonly string[]): Promise<Array<{ lifecycle_id: string; type: string }>> {
  return sql.rows(db, Q.openAlarmTypes, [lifecycleIds]);
}

const SAMPLES_AROUND: Record<Measurement, PlatformQuery> = {
  temperature: Q.samplesAroundTemperature,
  humidity: Q.samplesAroundHumidity,
  light: Q.samplesAroundLight,
  shock: Q.samplesAroundShock,
  battery: Q.samplesAroundBattery,
};

const EXCURSION_ALARMED: Record<Measurement, PlatformQuery> = {
  temperature: Q.excursionAlarmedTemperature,
  humidity: Q.excursionAlarmedHumidity,
  light: Q.excursionAlarmedLight,
  shock: Q.excursionAlarmedShock,
  battery: Q.excursionAlarmedBattery,
};

/** The stored samples of one measurement of a lifecycle in [from, to], plus the nearest one on each side, in time order. */
export function measurementSamplesAround(
  db: Db,
  measurement: Measurement,
  lifecycle: { deviceId: string; id: string },
  from: Date,
  to: Date,
): Promise<Array<{ recorded_at: Date; value: number }>> {
  return sql.rows(db, SAMPLES_AROUND[measurement], [lifecycle.deviceId, lifecycle.id, from.toISOString(), to.toISOString()]);
}

/**
 * Whether an earlier alarm of this type already covers the excursion around `at`: an alarm whose
 * triggering point is joined to `at` by samples outside [min, max] only.
 */
export async function excursionAlreadyAlarmed(
  db: Db,
  measurement: Measurement,
  lifecycle: { deviceId: string; id: string },
  alarmType: string,
  limits: { min: number | null; max: number | null },
  at: Date,
): Promise<boolean> {
  const row = await sql.first(db, EXCURSION_ALARMED[measurement], [lifecycle.id, alarmType, at.toISOString(), lifecycle.deviceId, limits.min, limits.max]);
  return row !== null;
}

