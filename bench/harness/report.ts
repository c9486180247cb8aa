import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MachineInfo } from './machine';

export interface ResultRow {
  scenario: string;
  /** What the figures are, e.g. "throughput" or "p99 latency". */
  metric: string;
  unit: string;
  project: number | null;
  baseline: number | null;
  /** project / baseline, when the target is a ratio. */
  ratio: number | null;
  target: string;
  /** null: informational, skipped or failed. */
  pass: boolean | null;
  status: 'measured' | 'info' | 'skipped' | 'failed';
  /** CPU seconds per unit of work (request, point, delivery), median over rounds. */
  cpu?: { per: string; project: number | null; baseline: number | null };
  rounds?: number;
  note?: string;
  samples?: { project: number[]; baseline: number[] };
  /** `--scale` rows: the figure at every size (points: nominal, stored: exact count then) — project = the largest size's, baseline = the smallest's. */
  sizes?: Array<{ points: number; stored?: number; value: number }>;
}

export interface BenchReport {
  mode: 'full' | 'quick';
  machine: MachineInfo;
  /** Where PostgreSQL ran: the bench's own cluster (its settings) or a shared server. */
  postgres?: { server: 'own cluster'; version: string; settings: Record<string, string> } | { server: 'shared'; url: string };
  /** os.loadavg() (1, 5, 15 min) when the run started and when it ended: how shared the machine was. */
  load_average?: { start: number[]; end: number[] };
  duration_s: number;
  results: ResultRow[];
}

export function skipped(scenario: string, target: string, reason: string): ResultRow {
  return { scenario, metric: '—', unit: '', project: null, baseline: null, ratio: null, target, pass: null, status: 'skipped', note: reason };
}

export function failed(scenario: string, target: string, error: unknown): ResultRow {
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return { scenario, metric: '—', unit: '', project: null, baseline: null, ratio: null, target, pass: null, status: 'failed', note: message };
}

function number(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const figure = (value: number | null, unit: string): string => (value === null ? '—' : `${number(value)} ${unit}`.trim());

function cpuFigure(value: number | null | undefined, per: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${value.toPrecision(3)} s/${per}`;
}

function outcome(row: ResultRow): string {
  if (row.status === 'skipped') return `skipped (${row.note ?? ''})`;
  if (row.status === 'failed') return `FAILED: ${row.note ?? ''}`;
  if (row.pass === null) return 'info';
  return row.pass ? 'pass' : '**FAIL**';
}

export function markdownTable(rows: readonly ResultRow[]): string {
  const header = ['scenario', 'metric', 'project', 'baseline', 'ratio', 'target', 'result', 'CPU-s per unit, project', 'CPU-s per unit, baseline'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    lines.push(
      `| ${[
        row.scenario,
        row.metric,
        figure(row.project, row.unit),
        figure(row.baseline, row.unit),
        row.ratio === null ? '—' : row.ratio.toFixed(2),
        row.target,
        outcome(row),
        cpuFigure(row.cpu?.project, row.cpu?.per ?? ''),
        cpuFigure(row.cpu?.baseline, row.cpu?.per ?? ''),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

export function machineLine(machine: MachineInfo): string {
  return `${machine.cpu_model}, ${machine.cores} cores, ${machine.memory_gb} GiB; Node ${machine.node_version}; PostgreSQL ${machine.postgresql_version}; ${machine.date}`;
}

export function writeReport(path: string, report: BenchReport): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}
