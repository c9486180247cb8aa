/**
 * Delivery health of an endpoint (issue 17): attempts per hour, succeeded and failed, and their
 * latency, from the hourly rollup the dispatcher writes with every attempt
 * (`webhook_endpoint_hourly_stats`). The attempt log keeps only the newest 100 attempts per
 * endpoint, so it cannot tell a week; the rollup keeps `HEALTH_STATS_KEPT_HOURS` of hours.
 *
 * Latency is a histogram with log-spaced buckets; a percentile is the upper bound of the bucket
 * that holds it, capped at the slowest attempt of that hour (which is exact for the last bucket).
 * So "p99 ≤ 250 ms" reads as "99 % of attempts took less than 250 ms".
 */

/** Upper bounds (exclusive, ms) of the latency buckets; one more bucket holds the rest. */
export const LATENCY_BUCKET_BOUNDS_MS: readonly number[] = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** Hours the chart shows: the last 24 hours and the last 7 days (the current hour included). */
export const HEALTH_SHORT_HOURS = 24;
export const HEALTH_LONG_HOURS = 7 * 24;
/** Rollup rows older than this are deleted by the hourly housekeeping (7 days and a margin). */
export const HEALTH_STATS_KEPT_HOURS = 8 * 24;

const HOUR_MS = 3_600_000;

/** One row of the rollup. */
export interface HourlyStatsRow {
  hour: Date;
  succeeded: number;
  failed: number;
  latency_buckets: number[];
  max_duration_ms: number;
}

/** One hour of the chart (ISO hour start); percentiles are null in an hour without attempts. */
export interface HealthHour {
  hour: string;
  succeeded: number;
  failed: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface HealthTotals {
  attempts: number;
  succeeded: number;
  failed: number;
  /** Succeeded / attempts, 0..1; null without attempts. */
  success_rate: number | null;
}

export interface HealthSeries {
  hours: HealthHour[];
  totals: HealthTotals;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface EndpointHealth {
  /** When the series were computed (the last hour is the current, partial one). */
  as_of: string;
  last_24_hours: HealthSeries;
  last_7_days: HealthSeries;
}

/** The start of the hour `instant` is in. */
export function hourStart(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / HOUR_MS) * HOUR_MS);
}

/** The first hour of a window of `hours` hours that ends with the current one. */
export function windowStart(now: Date, hours: number): Date {
  return new Date(hourStart(now).getTime() - (hours - 1) * HOUR_MS);
}

/**
 * The `quantile` (0..1) of a latency histogram: the upper bound of the bucket that holds it,
 * capped at `maxMs` (the slowest attempt counted). Null for an empty histogram.
 */
export function latencyPercentile(buckets: readonly number[], maxMs: number, quantile: number): number | null {
  const total = buckets.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(quantile * total));
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i];
    if (seen >= rank) return i < LATENCY_BUCKET_BOUNDS_MS.length ? Math.min(LATENCY_BUCKET_BOUNDS_MS[i], maxMs) : maxMs;
  }
  return maxMs;
}

export function successTotals(succeeded: number, failed: number): HealthTotals {
  const attempts = succeeded + failed;
  return { attempts, succeeded, failed, success_rate: attempts === 0 ? null : succeeded / attempts };
}

function addBuckets(into: number[], from: readonly number[]): void {
  from.forEach((n, i) => (into[i] = (into[i] ?? 0) + n));
}

/** Every hour of the window, oldest first, hours without a row as zero. */
export function healthSeries(rows: readonly HourlyStatsRow[], now: Date, hours: number): HealthSeries {
  const first = windowStart(now, hours).getTime();
  const byHour = new Map(rows.map((row) => [hourStart(row.hour).getTime(), row]));
  const all: number[] = [];
  let max = 0;
  let succeeded = 0;
  let failed = 0;
  const series: HealthHour[] = [];
  for (let i = 0; i < hours; i++) {
    const at = first + i * HOUR_MS;
    const row = byHour.get(at);
    if (row) {
      addBuckets(all, row.latency_buckets);
      max = Math.max(max, row.max_duration_ms);
      succeeded += row.succeeded;
      failed += row.failed;
    }
    series.push({
      hour: new Date(at).toISOString(),
      succeeded: row?.succeeded ?? 0,
      failed: row?.failed ?? 0,
      p50_ms: row ? latencyPercentile(row.latency_buckets, row.max_duration_ms, 0.5) : null,
      p99_ms: row ? latencyPercentile(row.latency_buckets, row.max_duration_ms, 0.99) : null,
    });
  }
  return {
    hours: series,
    totals: successTotals(succeeded, failed),
    p50_ms: latencyPercentile(all, max, 0.5),
    p99_ms: latencyPercentile(all, max, 0.99),
  };
}

/** The health of one endpoint from its rollup rows of the last 7 days. */
export function endpointHealth(rows: readonly HourlyStatsRow[], now: Date): EndpointHealth {
  return {
    as_of: now.toISOString(),
    last_24_hours: healthSeries(rows, now, HEALTH_SHORT_HOURS),
    last_7_days: healthSeries(rows, now, HEALTH_LONG_HOURS),
  };
}
