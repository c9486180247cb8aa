import type { ResultRow } from '../harness/report';
import { formatPoints, scaleVerdict, type Direction } from './plan';
import { lineChartSvg, type ChartSeries } from './svg-chart';

/** The reads measured at every size (p50/p99 of sequential requests). */
export const MEASURES = ['telemetry-latest-day', 'telemetry-old-month', 'tracking', 'device-list'] as const;
export type MeasureName = (typeof MEASURES)[number];

const READ_LABELS: Record<MeasureName, string> = {
  'telemetry-latest-day': 'GET /devices/{id}/telemetry/, latest day, first page (100 points)',
  'telemetry-old-month': 'GET /devices/{id}/telemetry/, a random old month, first page (100 points)',
  tracking: 'GET /shipments/{id}/tracking/, first page (100 points of 3 devices)',
  'device-list': 'GET /devices/ (1,000-device tenant, first page)',
};

export interface SizeResult {
  /** Nominal size (grid points). */
  size: number;
  facts: { points: number; databaseBytes: number; telemetryBytes: number; telemetryIndexBytes: number };
  latencies: Partial<Record<MeasureName, { p50: number; p99: number; rounds: { p50: number[]; p99: number[] }; cpuMs?: { api: number; database: number } }>>;
  /** points/s per ingest round. */
  ingest: number[];
  /** CPU-µs per ingested point: the api and this database's PostgreSQL backends. */
  ingestCpuUs?: { api: number; database: number };
  /** 1-minute load average before the reads, after them, after ingestion. */
  load: number[];
  seedSeconds: number;
  vacuumSeconds: number;
}

interface Figure {
  scenario: string;
  metric: string;
  unit: string;
  direction: Direction;
  /** Legend of the chart (absent: not charted), its colour slot and whether dashed (p99). */
  chart?: string;
  colour?: number;
  dashed?: boolean;
  /** Which chart: latency (wall time) or CPU. */
  kind?: 'latency' | 'cpu';
  /** For the chart: cost relative to the smallest size (throughputs inverted). */
  invert?: boolean;
  value(result: SizeResult): number;
}

const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export function scaleFigures(): Figure[] {
  const figures: Figure[] = [];
  MEASURES.forEach((measure, colour) => {
    for (const stat of ['p50', 'p99'] as const) {
      figures.push({
        scenario: `scale-${measure}`,
        metric: `${READ_LABELS[measure]}, ${stat}`,
        unit: 'ms',
        direction: 'lower-is-better',
        chart: `${measure} ${stat}`,
        colour,
        dashed: stat === 'p99',
        value: (r) => r.latencies[measure]?.[stat] ?? Number.NaN,
      });
    }
    figures.push({
      scenario: `scale-${measure}`,
      metric: `${READ_LABELS[measure]}, CPU per request (api + its PostgreSQL backends)`,
      unit: 'CPU-ms',
      direction: 'lower-is-better',
      chart: `${measure}`,
      colour,
      kind: 'cpu',
      value: (r) => {
        const cpu = r.latencies[measure]?.cpuMs;
        return cpu ? cpu.api + cpu.database : Number.NaN;
      },
    });
  });
  figures.push({
    scenario: 'scale-ingest',
    metric: 'ingestion through RabbitMQ (100 points/message, 100 devices) until stored',
    unit: 'points/s',
    direction: 'higher-is-better',
    chart: 'ingest (time per point)',
    colour: MEASURES.length,
    invert: true,
    value: (r) => median(r.ingest),
  });
  figures.push({
    scenario: 'scale-ingest',
    metric: 'ingestion, CPU per point (api + its PostgreSQL backends)',
    unit: 'CPU-µs',
    direction: 'lower-is-better',
    chart: 'ingest',
    colour: MEASURES.length,
    kind: 'cpu',
    value: (r) => (r.ingestCpuUs ? r.ingestCpuUs.api + r.ingestCpuUs.database : Number.NaN),
  });
  figures.push({ scenario: 'scale-database-size', metric: 'pg_database_size', unit: 'MiB', direction: 'info', value: (r) => r.facts.databaseBytes / 2 ** 20 });
  figures.push({ scenario: 'scale-database-size', metric: 'telemetry partitions with indexes', unit: 'MiB', direction: 'info', value: (r) => r.facts.telemetryBytes / 2 ** 20 });
  return figures;
}

/** latest.json rows: one per figure, ratio = the largest size's figure / the smallest's. */
export function scaleRows(results: readonly SizeResult[], factor: number, rounds: number): ResultRow[] {
  const small = results[0];
  const large = results[results.length - 1];
  return scaleFigures().map((figure) => {
    const sizes = results.map((r) => ({ points: r.size, stored: r.facts.points, value: figure.value(r) }));
    const verdict = scaleVerdict(sizes, figure.direction, factor);
    return {
      scenario: figure.scenario,
      metric: figure.metric,
      unit: figure.unit,
      project: figure.value(large),
      baseline: figure.value(small),
      ratio: verdict.ratio,
      target: verdict.target,
      pass: verdict.pass,
      status: figure.direction === 'info' ? 'info' : 'measured',
      rounds,
      note: `project = at ${formatPoints(large.size)} points, baseline = at ${formatPoints(small.size)} points`,
      sizes,
    };
  });
}

const num = (value: number): string => {
  if (!Number.isFinite(value)) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
};

/** The table of BENCHMARKS.md "Cost as the data grows": every figure at every size, ratio, target, result. */
export function scaleMarkdown(results: readonly SizeResult[], factor: number): string {
  const names = results.map((r) => formatPoints(r.size));
  const header = ['measure', ...names, results.length >= 2 ? `ratio ${names[names.length - 1]} / ${names[0]}` : 'ratio', 'target', 'result'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const figure of scaleFigures()) {
    const values = results.map((r) => figure.value(r));
    let ratio = '—';
    let target = '—';
    let outcome = '—';
    if (results.length >= 2) {
      const verdict = scaleVerdict(results.map((r, i) => ({ points: r.size, value: values[i] })), figure.direction, factor);
      ratio = verdict.ratio.toFixed(2);
      target = verdict.target;
      outcome = verdict.pass === null ? 'info' : verdict.pass ? 'pass' : '**FAIL**';
    }
    lines.push(`| ${[`${figure.scenario}: ${figure.metric}`, ...values.map((v) => `${num(v)} ${figure.unit}`), ratio, target, outcome].join(' | ')} |`);
  }
  const facts: Array<[string, (r: SizeResult) => string]> = [
    ['telemetry points stored (exact count: grid, probe windows, ingested so far)', (r) => r.facts.points.toLocaleString('en-US')],
    ['telemetry indexes', (r) => `${num(r.facts.telemetryIndexBytes / 2 ** 20)} MiB`],
    ['seeding this step (generate_series)', (r) => `${num(r.seedSeconds)} s`],
    ['VACUUM (ANALYZE) after it', (r) => `${num(r.vacuumSeconds)} s`],
    ['1-minute load average (before reads / after reads / after ingestion)', (r) => r.load.map((l) => l.toFixed(1)).join(' / ')],
  ];
  for (const [label, value] of facts) lines.push(`| ${[label, ...results.map(value), '', '', 'info'].join(' | ')} |`);
  return lines.join('\n');
}

/** Cost against size: each charted figure relative to its smallest-size value (throughput as time per point). */
export function scaleChart(results: readonly SizeResult[], factor: number, subtitle: string, kind: 'latency' | 'cpu' = 'latency'): string {
  const series: ChartSeries[] = [];
  for (const figure of scaleFigures()) {
    if (!figure.chart || (figure.kind ?? 'latency') !== kind) continue;
    if (results.some((r) => !Number.isFinite(figure.value(r)))) continue;
    const base = figure.value(results[0]);
    series.push({
      name: figure.chart,
      colour: figure.colour,
      dashed: figure.dashed,
      values: results.map((r) => {
        const v = figure.value(r);
        return { x: r.size, y: figure.invert ? base / v : v / base };
      }),
    });
  }
  return lineChartSvg({
    title: kind === 'latency' ? 'Latency as the data grows (relative to the smallest size; p99 dashed)' : 'CPU per request or point as the data grows (api + PostgreSQL backends)',
    subtitle,
    xLabel: 'telemetry points (log scale)',
    yLabel: 'cost relative to the smallest size (×)',
    series,
    threshold: { y: factor, label: `target ${factor} ×` },
  });
}
