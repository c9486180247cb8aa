import type { TimeChart } from './chart';
import type { SoakWindow, Verdict } from './windows';

const cell = (value: number | null, digits = 1): string => (value === null ? '—' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

/** The windows as a markdown table (BENCHMARKS.md "Soak", the end of the run's stdout). */
export function windowsTable(windows: readonly SoakWindow[]): string {
  const header = ['window', 't (min)', 'reads/s', 'read p50 / p99 (ms)', 'read errors', 'points/s', 'ingest backlog (msgs)', 'deliveries/s', 'event p50 / p99 (ms)', 'api RSS / heap used (MB)', 'dispatcher RSS (MB)', 'CPU % api / dispatcher / PG+MQ', 'load (1 min)'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const w of windows) {
    lines.push(
      `| ${[
        `${w.index + 1}${w.warmup ? ' (warm-up)' : ''}`,
        cell(w.t_s / 60),
        cell(w.reads_per_s, 0),
        `${cell(w.read_p50_ms)} / ${cell(w.read_p99_ms)}`,
        String(w.read_errors),
        cell(w.points_per_s, 0),
        String(w.ingest_backlog_messages),
        cell(w.deliveries_per_s, 0),
        `${cell(w.event_p50_ms)} / ${cell(w.event_p99_ms)}`,
        `${cell(w.api_rss_mb, 0)} / ${cell(w.api_heap_used_mb ?? null, 0)}`,
        cell(w.dispatcher_rss_mb, 0),
        `${cell(w.api_cpu_pct, 0)} / ${cell(w.dispatcher_cpu_pct, 0)} / ${cell(w.services_cpu_pct, 0)}`,
        cell(w.load1, 2),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

export function verdictLines(v: Verdict): string {
  return [`Verdict: ${v.pass ? 'PASS' : 'FAIL'} (${v.errors} errors)`, ...v.checks.map((c) => `- ${c.pass ? 'pass' : 'FAIL'}: ${c.name}: ${c.detail}`)].join('\n');
}

/** The chart over time: RSS, p99, throughput, ingestion, CPU and machine load. */
export function soakChart(windows: readonly SoakWindow[], title: string): TimeChart {
  const warm = windows.filter((w) => w.warmup);
  return {
    title,
    x: windows.map((w) => w.t_s),
    warmupUntil: warm.length > 0 ? warm[warm.length - 1].t_s : undefined,
    panels: [
      { title: 'Resident memory', unit: 'MB', series: [{ name: 'api RSS', values: windows.map((w) => w.api_rss_mb) }, { name: 'dispatcher RSS', values: windows.map((w) => w.dispatcher_rss_mb) }, { name: 'api V8 heap used', values: windows.map((w) => w.api_heap_used_mb ?? null) }] },
      {
        title: 'Latency per window',
        unit: 'ms',
        series: [
          { name: 'read p99', values: windows.map((w) => w.read_p99_ms) },
          { name: 'event p99', values: windows.map((w) => w.event_p99_ms) },
          { name: 'read p50', values: windows.map((w) => w.read_p50_ms) },
          { name: 'event p50', values: windows.map((w) => w.event_p50_ms) },
        ],
      },
      { title: 'Throughput', unit: 'per second', series: [{ name: 'api reads/s', values: windows.map((w) => w.reads_per_s) }, { name: 'deliveries/s', values: windows.map((w) => w.deliveries_per_s) }] },
      { title: 'Ingestion', unit: 'points per second', series: [{ name: 'points/s', values: windows.map((w) => w.points_per_s) }] },
      {
        title: 'CPU and machine load',
        unit: '% of one core',
        series: [
          { name: 'api', values: windows.map((w) => w.api_cpu_pct) },
          { name: 'dispatcher', values: windows.map((w) => w.dispatcher_cpu_pct) },
          { name: 'PostgreSQL+RabbitMQ', values: windows.map((w) => w.services_cpu_pct) },
          { name: 'load avg × 100', values: windows.map((w) => Math.round(w.load1 * 100)) },
        ],
      },
    ],
  };
}
