import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { poolQuery } from '@app/database/pool-query';
import type { Measurement } from '@app/domain';
import { bucketedQuery } from './telemetry-aggregation';
import type { AccountId } from '@app/vocabulary';

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

/**
 * The lifecycle id comes from a sub-select bounded by the account, so that even a wrong
 * lifecycle id could not read another tenant's points; the planner runs it once (InitPlan) and
 * scans the (device_id, recorded_at) index of the months in range.
 */
const SCOPED_POINTS = `
  t.device_id = $1
  AND t.lifecycle_id = (SELECT id FROM device_lifecycles WHERE id = $2 AND account_id = $3 AND device_id = $1)
  AND t.recorded_at >= $4 AND t.recorded_at < $5`;

@Injectable()
export class TelemetryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The page query: [from, to) after the keyset position, in time order. */
  pointsQuery(scope: TelemetryScope, from: Date, to: Date, after: Date | null, limit: number): { sql: string; params: unknown[] } {
    const params: unknown[] = [scope.deviceId, scope.lifecycleId, scope.accountId, from.toISOString(), to.toISOString(), limit];
    let keyset = '';
    if (after) {
      params.push(after.toISOString());
      keyset = 'AND t.recorded_at > $7';
    }
    return {
      sql: `SELECT t.recorded_at, t.temperature, t.humidity, t.light, t.shock, t.battery, t.latitude, t.longitude
              FROM telemetry_points t
             WHERE ${SCOPED_POINTS} ${keyset}
             ORDER BY t.recorded_at
             LIMIT $6`,
      params,
    };
  }

  async points(scope: TelemetryScope, from: Date, to: Date, after: Date | null, limit: number): Promise<PointRow[]> {
    const { sql, params } = this.pointsQuery(scope, from, to, after, limit);
    return poolQuery<PointRow>(this.dataSource, sql, params);
  }

  /** Every bucket from `first` to `last` (empty ones included), aggregating points in [from, to). */
  async buckets(scope: TelemetryScope, widthMs: number, window: { first: Date; last: Date; from: Date; to: Date }): Promise<BucketRow[]> {
    const points = {
      sql: `SELECT t.recorded_at, t.temperature, t.humidity, t.light, t.shock, t.battery FROM telemetry_points t WHERE ${SCOPED_POINTS}`,
      params: [scope.deviceId, scope.lifecycleId, scope.accountId, window.from.toISOString(), window.to.toISOString()],
    };
    const { sql, params } = bucketedQuery(points, widthMs, window);
    return poolQuery<BucketRow>(this.dataSource, sql, params);
  }
}
