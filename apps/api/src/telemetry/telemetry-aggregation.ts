import { MEASUREMENTS } from '@app/domain';
import type { PageRequest } from '../common/paginator';
import { bucketWindow, type BucketWindow } from './telemetry-buckets';

const STATS = MEASUREMENTS.map((m) => `min(${m}) AS ${m}_min, round(avg(${m})::numeric, 3)::float8 AS ${m}_avg, max(${m}) AS ${m}_max`).join(',\n');

/**
 * Downsampling shared by device telemetry and shipment tracking: every bucket from
 * `window.first` to `window.last` (empty ones included, count 0), each with the count and
 * min/avg/max of each measurement over `points` — any SELECT yielding `recorded_at` and the
 * measurement columns, already limited to the page's [from, to). Its parameters come first.
 */
export function bucketedQuery(points: { sql: string; params: unknown[] }, widthMs: number, window: { first: Date; last: Date }): { sql: string; params: unknown[] } {
  const n = points.params.length;
  const width = `$${n + 1}::interval`;
  return {
    sql: `WITH points AS (${points.sql}),
          aggregated AS (
            SELECT date_bin(${width}, recorded_at, 'epoch'::timestamptz) AS bucket_start, count(*)::int AS count,
                   ${STATS}
              FROM points
             GROUP BY 1)
          SELECT b.bucket_start, COALESCE(a.count, 0) AS count, ${MEASUREMENTS.map((m) => `a.${m}_min, a.${m}_avg, a.${m}_max`).join(', ')}
            FROM generate_series($${n + 2}::timestamptz, $${n + 3}::timestamptz, ${width}) AS b(bucket_start)
            LEFT JOIN aggregated a ON a.bucket_start = b.bucket_start
           ORDER BY b.bucket_start`,
    params: [...points.params, `${widthMs / 1000} seconds`, window.first.toISOString(), window.last.toISOString()],
  };
}

/** The keyset position of a time-ordered page (its first element, an ISO timestamp), or null. */
export const positionDate = (page: PageRequest): Date | null => {
  const value = page.after?.[0];
  return typeof value === 'string' ? new Date(value) : null;
};

/** The buckets of the page: up to limit + 1 consecutive ones after the cursor, inside [from, to). */
export function pageBucketWindow(widthMs: number, range: { from: Date; to: Date }, page: PageRequest): BucketWindow | null {
  const after = positionDate(page);
  const start = after ? new Date(Math.max(range.from.getTime(), after.getTime() + widthMs)) : range.from;
  return bucketWindow(widthMs, start, range.to, page.limit + 1);
}
