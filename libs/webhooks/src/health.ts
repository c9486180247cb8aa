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
const MINUTE_MS = 60_000;

/** Minutes of the last-hour chart (the current minute included). */
export const HEALTH_MINUTES = 60;

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

/** One minute of the last-hour chart (ISO minute start); exact percentiles of its attempts, null without any. */
export interface HealthMinute {
  minute: string;
  succeeded: number;
  failed: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

/**
 * The last hour per minute (issue 31 item 5), from the attempt log: a short outage is a sliver of
 * an hourly bar, here it is minutes wide. The log keeps an endpoint's newest
 * ATTEMPTS_KEPT_PER_ENDPOINT attempts, which covers the hour of any endpoint with fewer attempts an
 * hour; for a busier one `covered_from` says where the kept attempts begin (earlier minutes are
 * unknown, not empty). No per-minute rollup is written: the delivery path pays nothing for it.
 */
export interface MinuteSeries {
  minutes: HealthMinute[];
  totals: HealthTotals;
  p50_ms: number | null;
  p99_ms: number | null;
  /** Null: the whole hour is known. Else the oldest kept attempt: minutes before it are unknown. */
  covered_from: string | null;
}

/** What the minute series needs of an attempt of the log. */
export interface AttemptSample {
  attempted_at: Date;
  outcome: string;
  duration_ms: number;
}

export interface EndpointHealth {
  /** When the series were computed (the last hour is the current, partial one). */
  as_of: string;
  /** The last 60 minutes, the current one included. */
  last_hour: MinuteSeries;
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

/** The nearest-rank `quantile` of durations sorted ascending; null for none. */
export function exactPercentile(sorted: readonly number[], quantile: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(1, Math.ceil(quantile * sorted.length)) - 1];
}

/**
 * Every minute of the last hour, oldest first, from the attempt log's newest attempts. `logFull`:
 * the log held as many attempts as it keeps, so attempts older than its oldest may be gone.
 */
export function minuteSeries(attempts: readonly AttemptSample[], now: Date, logFull: boolean): MinuteSeries {
  const first = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - (HEALTH_MINUTES - 1) * MINUTE_MS;
  const durations: number[][] = Array.from({ length: HEALTH_MINUTES }, () => []);
  const succeeded = new Array<number>(HEALTH_MINUTES).fill(0);
  const failed = new Array<number>(HEALTH_MINUTES).fill(0);
  let oldest = Infinity;
  for (const attempt of attempts) {
    const at = attempt.attempted_at.getTime();
    oldest = Math.min(oldest, at);
    const index = Math.floor((at - first) / MINUTE_MS);
    if (index < 0 || index >= HEALTH_MINUTES) continue;
    durations[index].push(attempt.duration_ms);
    if (attempt.outcome === 'succeeded') succeeded[index] += 1;
    else failed[index] += 1;
  }
  const sorted = (list: number[]): number[] => [...list].sort((a, b) => a - b);
  const minutes = durations.map((list, i) => {
    const ordered = sorted(list);
    return {
      minute: new Date(first + i * MINUTE_MS).toISOString(),
      succeeded: succeeded[i],
      failed: failed[i],
      p50_ms: exactPercentile(ordered, 0.5),
      p99_ms: exactPercentile(ordered, 0.99),
    };
  });
  const all = sorted(durations.flat());
  return {
    minutes,
    totals: successTotals(succeeded.reduce((a, b) => a + b, 0), failed.reduce((a, b) => a + b, 0)),
    p50_ms: exactPercentile(all, 0.5),
    p99_ms: exactPercentile(all, 0.99),
    covered_from: logFull && oldest > first ? new Date(oldest).toISOString() : null,
  };
}

/** The health of one endpoint from its rollup rows of the last 7 days and its attempt log. */
export function endpointHealth(rows: readonly HourlyStatsRow[], now: Date, recent: { attempts: readonly AttemptSample[]; logFull: boolean } = { attempts: [], logFull: false }): EndpointHealth {
  return {
    as_of: now.toISOString(),
    last_hour: minuteSeries(recent.attempts, now, recent.logFull),
    last_24_hours: healthSeries(rows, now, HEALTH_SHORT_HOURS),
    last_7_days: healthSeries(rows, now, HEALTH_LONG_HOURS),
  };
}
