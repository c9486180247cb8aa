import { percentile } from '../harness/stats';

/**
 * Pure logic of the soak run: what one sampling window holds, how the windows are summarised and
 * the verdict rules. No I/O here (unit-tested in test/bench/soak.spec.ts).
 */

/** Raw observations collected during one window (reset at every sample). */
export interface WindowCollector {
  readLatenciesMs: number[];
  readOk: number;
  readNon2xx: number;
  readErrors: number;
  pointsPublished: number;
  eventsCommitted: number;
  eventLatenciesMs: number[];
  deliveries: number;
}

export const emptyCollector = (): WindowCollector => ({
  readLatenciesMs: [],
  readOk: 0,
  readNon2xx: 0,
  readErrors: 0,
  pointsPublished: 0,
  eventsCommitted: 0,
  eventLatenciesMs: [],
  deliveries: 0,
});

/** Process readings taken at the end of a window. */
export interface ProcessReadings {
  apiRssMb: number;
  /** V8 heap in use in the api (prom-client's nodejs_heap_size_used_bytes on its ops port), null if unreadable. */
  apiHeapUsedMb: number | null;
  dispatcherRssMb: number;
  /** CPU seconds so far (utime + stime) of each process and of PostgreSQL + RabbitMQ (null: not on this machine). */
  apiCpuS: number;
  dispatcherCpuS: number;
  servicesCpuS: number | null;
  /** /proc/loadavg, 1-minute figure. */
  load1: number;
  /** Messages waiting in the ingestion queue (backlog). */
  ingestBacklog: number;
}

/** One row of bench/results/soak.json and of the table in BENCHMARKS.md. */
export interface SoakWindow {
  index: number;
  /** Seconds since the start of the steady load, at the end of the window. */
  t_s: number;
  seconds: number;
  warmup: boolean;
  reads_per_s: number;
  read_p50_ms: number | null;
  read_p99_ms: number | null;
  read_errors: number;
  points_per_s: number;
  ingest_backlog_messages: number;
  events_per_s: number;
  deliveries_per_s: number;
  event_p50_ms: number | null;
  event_p99_ms: number | null;
  api_rss_mb: number;
  api_heap_used_mb: number | null;
  dispatcher_rss_mb: number;
  /** CPU in % of one core over the window. */
  api_cpu_pct: number;
  dispatcher_cpu_pct: number;
  services_cpu_pct: number | null;
  load1: number;
}

const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;
const pct = (value: number | null, digits = 2): number | null => (value === null || !Number.isFinite(value) ? null : round(value, digits));

/** Summarises one window: rates, percentiles, CPU % between the previous readings and these. */
export function summarizeWindow(
  index: number,
  tEndS: number,
  seconds: number,
  warmup: boolean,
  c: WindowCollector,
  before: ProcessReadings,
  after: ProcessReadings,
): SoakWindow {
  const perS = (n: number): number => (seconds > 0 ? round(n / seconds) : 0);
  const cpuPct = (b: number, a: number): number => (seconds > 0 ? round(((a - b) / seconds) * 100, 1) : 0);
  return {
    index,
    t_s: round(tEndS, 1),
    seconds: round(seconds, 1),
    warmup,
    reads_per_s: perS(c.readOk + c.readNon2xx),
    read_p50_ms: c.readLatenciesMs.length > 0 ? pct(percentile(c.readLatenciesMs, 50)) : null,
    read_p99_ms: c.readLatenciesMs.length > 0 ? pct(percentile(c.readLatenciesMs, 99)) : null,
    read_errors: c.readNon2xx + c.readErrors,
    points_per_s: perS(c.pointsPublished),
    ingest_backlog_messages: after.ingestBacklog,
    events_per_s: perS(c.eventsCommitted),
    deliveries_per_s: perS(c.deliveries),
    event_p50_ms: c.eventLatenciesMs.length > 0 ? pct(percentile(c.eventLatenciesMs, 50)) : null,
    event_p99_ms: c.eventLatenciesMs.length > 0 ? pct(percentile(c.eventLatenciesMs, 99)) : null,
    api_rss_mb: round(after.apiRssMb, 1),
    api_heap_used_mb: after.apiHeapUsedMb === null ? null : round(after.apiHeapUsedMb, 1),
    dispatcher_rss_mb: round(after.dispatcherRssMb, 1),
    api_cpu_pct: cpuPct(before.apiCpuS, after.apiCpuS),
    dispatcher_cpu_pct: cpuPct(before.dispatcherCpuS, after.dispatcherCpuS),
    services_cpu_pct: before.servicesCpuS === null || after.servicesCpuS === null ? null : cpuPct(before.servicesCpuS, after.servicesCpuS),
    load1: after.load1,
  };
}

/** How many of `total` windows are warm-up: the first 20 % of the run (at least one, never all). */
export function warmupWindows(total: number, fraction = 0.2): number {
  if (total <= 1) return 0;
  return Math.min(total - 1, Math.max(1, Math.ceil(total * fraction)));
}

/** Everything counted as an error at the end of the run. */
export interface ErrorTally {
  /** Non-2xx responses and socket errors/timeouts of the read load. */
  readErrors: number;
  /** Points published but not stored after the queue drained. */
  lostPoints: number;
  /** Messages in the ingestion dead-letter queue. */
  deadLettered: number;
  /** (event, endpoint) pairs that never arrived. */
  missingDeliveries: number;
  /** Deliveries beyond one per (event, endpoint). */
  duplicateDeliveries: number;
  /** Any other failure (a process exited, a publish failed), as messages. */
  other: string[];
}

export const RSS_GROWTH_LIMIT = 0.1;
export const P99_RATIO_LIMIT = 1.5;
/** Below this absolute change a p99 is stable whatever the ratio (one scheduler slice on a shared 2-core machine). */
export const P99_SLACK_MS = 5;

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

export interface Verdict {
  errors: number;
  checks: Check[];
  /** Zero errors and every check passed. */
  pass: boolean;
  rules: string[];
}

/** Windows compared at each end of the steady part: 10 % of all windows (at least one). */
export function comparedWindows(total: number): number {
  return Math.max(1, Math.round(total * 0.1));
}

export const VERDICT_RULES = [
  'zero errors: no non-2xx or failed read, no lost or dead-lettered point, no missing or duplicated (event, endpoint) delivery, no process exit',
  'warm-up = the first 20 % of the windows; "early" = the first 10 % of all windows after the warm-up, "late" = the last 10 % of the windows (at least one window each); each group is summarised by the median of its per-window figures, so that one noisy window on a shared machine decides nothing',
  `RSS growth after warm-up: late RSS of the api and of the dispatcher below ${(1 + RSS_GROWTH_LIMIT).toFixed(2)} × their early RSS`,
  `p99 stable: late p99 (reads; commit → receipt) at most ${P99_RATIO_LIMIT} × the early p99, or at most ${P99_SLACK_MS} ms above it`,
];

function medianOrNull(values: ReadonlyArray<number | null>): number | null {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (present.length === 0) return null;
  const middle = Math.floor(present.length / 2);
  return present.length % 2 === 1 ? present[middle] : (present[middle - 1] + present[middle]) / 2;
}

function rssCheck(name: string, early: number | null, late: number | null): Check {
  if (early === null || late === null || early <= 0) return { name: `${name} RSS growth after warm-up`, pass: true, detail: 'no readings' };
  const growth = late / early - 1;
  return { name: `${name} RSS growth after warm-up`, pass: growth < RSS_GROWTH_LIMIT, detail: `${early.toFixed(1)} → ${late.toFixed(1)} MB (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %, limit ${RSS_GROWTH_LIMIT * 100} %)` };
}

function p99Check(name: string, early: number | null, late: number | null): Check {
  if (early === null || late === null) return { name: `${name} p99 stable`, pass: true, detail: 'no samples in the compared windows' };
  const pass = late <= early * P99_RATIO_LIMIT || late - early <= P99_SLACK_MS;
  return { name: `${name} p99 stable`, pass, detail: `${early.toFixed(1)} → ${late.toFixed(1)} ms (${(late / early).toFixed(2)} ×, limit ${P99_RATIO_LIMIT} × or +${P99_SLACK_MS} ms)` };
}

/** The value of an unlabelled gauge in Prometheus text exposition, or null. */
export function gaugeValue(exposition: string, name: string): number | null {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)`, 'm').exec(exposition);
  return match ? Number(match[1]) : null;
}

/** The verdict over the windows (warm-up windows flagged) and the error tally. */
export function verdict(windows: readonly SoakWindow[], tally: ErrorTally): Verdict {
  const errors = tally.readErrors + tally.lostPoints + tally.deadLettered + tally.missingDeliveries + tally.duplicateDeliveries + tally.other.length;
  const checks: Check[] = [
    {
      name: 'zero errors',
      pass: errors === 0,
      detail: `${tally.readErrors} read errors, ${tally.lostPoints} lost points, ${tally.deadLettered} dead-lettered messages, ${tally.missingDeliveries} missing and ${tally.duplicateDeliveries} duplicated deliveries${tally.other.length > 0 ? `, ${tally.other.join('; ')}` : ''}`,
    },
  ];
  const steady = windows.filter((w) => !w.warmup);
  if (steady.length >= 2) {
    const k = Math.min(comparedWindows(windows.length), Math.floor(steady.length / 2));
    const early = steady.slice(0, k);
    const late = steady.slice(-k);
    const pick = (group: readonly SoakWindow[], field: 'api_rss_mb' | 'dispatcher_rss_mb' | 'read_p99_ms' | 'event_p99_ms'): number | null => medianOrNull(group.map((w) => w[field]));
    checks.push(rssCheck('api', pick(early, 'api_rss_mb'), pick(late, 'api_rss_mb')));
    checks.push(rssCheck('dispatcher', pick(early, 'dispatcher_rss_mb'), pick(late, 'dispatcher_rss_mb')));
    checks.push(p99Check('read', pick(early, 'read_p99_ms'), pick(late, 'read_p99_ms')));
    checks.push(p99Check('event commit → receipt', pick(early, 'event_p99_ms'), pick(late, 'event_p99_ms')));
  } else {
    checks.push({ name: 'RSS growth and p99 stability', pass: true, detail: 'fewer than two windows after warm-up: not assessed (run longer)' });
  }
  return { errors, checks, pass: checks.every((c) => c.pass), rules: VERDICT_RULES };
}

/** Half of a measured capacity, rounded to a whole rate (at least 1). */
export const halfOf = (capacity: number): number => Math.max(1, Math.round(capacity / 2));

/** Work due by `elapsedMs` at `ratePerS`, minus what was already done: a constant-rate (open-loop) scheduler's step. */
export function dueUnits(ratePerS: number, elapsedMs: number, done: number): number {
  return Math.max(0, Math.floor((ratePerS * elapsedMs) / 1000) - done);
}
