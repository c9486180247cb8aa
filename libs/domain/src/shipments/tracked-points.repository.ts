import { sql, type Db } from '@app/database/sql';
import { SHIPMENT_QUERIES as Q } from './shipments.queries';
import { trackedPointsParams, type TrackedPointsScope } from './tracked-points';

// The telemetry of the devices a shipment tracks, over the time each was attached (tracking and the share page).

export interface TrackedSummaryRow {
  point_count: number;
  min: number | null;
  max: number | null;
  avg: number | null;
}

/** Count and temperature min/max/avg of the tracked points. */
export async function trackedSummary(db: Db, scope: TrackedPointsScope): Promise<TrackedSummaryRow> {
  const row = await sql.first<TrackedSummaryRow>(db, Q.trackedSummary, trackedPointsParams(scope));
  return row ?? { point_count: 0, min: null, max: null, avg: null };
}

/** The latest tracked point with a position, or null. */
export function lastTrackedFix(db: Db, scope: TrackedPointsScope): Promise<{ latitude: number; longitude: number; recorded_at: Date } | null> {
  return sql.first(db, Q.lastTrackedFix, trackedPointsParams(scope));
}

/** Up to `limit` tracked points after the (recorded_at, device_id) keyset position, in that order. */
export function trackedPoints<T>(db: Db, scope: TrackedPointsScope, after: { recordedAt: string; deviceId: string } | null, limit: number): Promise<T[]> {
  return sql.rows<T>(db, Q.trackedPoints, [...trackedPointsParams(scope), after?.recordedAt ?? null, after?.deviceId ?? null, limit]);
}

/** Every bucket of `widthMs` from `first` to `last` (empty ones included) over the tracked points. */
export function trackedBuckets<T>(db: Db, scope: TrackedPointsScope, widthMs: number, window: { first: Date; last: Date }): Promise<T[]> {
  return sql.rows<T>(db, Q.trackedBuckets, [...trackedPointsParams(scope), `${widthMs / 1000} seconds`, window.first.toISOString(), window.last.toISOString()]);
}
