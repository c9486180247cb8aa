import { niceCeiling, renderTimeChart } from '../../bench/soak/chart';
import { parseSoakOptions } from '../../bench/soak/options';
import { soakChart, windowsTable } from '../../bench/soak/report';
import {
  comparedWindows,
  dueUnits,
  emptyCollector,
  gaugeValue,
  halfOf,
  summarizeWindow,
  verdict,
  warmupWindows,
  type ErrorTally,
  type ProcessReadings,
  type SoakWindow,
} from '../../bench/soak/windows';

const readings = (over: Partial<ProcessReadings> = {}): ProcessReadings => ({
  apiRssMb: 200,
  apiHeapUsedMb: 60,
  dispatcherRssMb: 130,
  apiCpuS: 0,
  dispatcherCpuS: 0,
  servicesCpuS: 0,
  load1: 1,
  ingestBacklog: 0,
  ...over,
});

const noErrors = (): ErrorTally => ({ readErrors: 0, lostPoints: 0, deadLettered: 0, missingDeliveries: 0, duplicateDeliveries: 0, other: [] });

function windowsOf(count: number, shape: (i: number) => Partial<SoakWindow>): SoakWindow[] {
  const warm = warmupWindows(count);
  return Array.from({ length: count }, (_, i) => ({
    ...summarizeWindow(i, (i + 1) * 15, 15, i < warm, { ...emptyCollector(), readOk: 150, readLatenciesMs: [10, 20] }, readings(), readings()),
    read_p99_ms: 20,
    event_p99_ms: 30,
    ...shape(i),
  }));
}

describe('soak window statistics', () => {
  it('summarises one window: rates per second, nearest-rank percentiles, CPU as % of one core', () => {
    const c = { ...emptyCollector(), readOk: 95, readNon2xx: 5, readErrors: 2, pointsPublished: 1000, eventsCommitted: 20, deliveries: 200 };
    c.readLatenciesMs = Array.from({ length: 100 }, (_, i) => i + 1);
    c.eventLatenciesMs = [5, 7, 9];
    const w = summarizeWindow(3, 60, 10, false, c, readings({ apiCpuS: 10, dispatcherCpuS: 5, servicesCpuS: 100 }), readings({ apiCpuS: 12, dispatcherCpuS: 5.5, servicesCpuS: 103, ingestBacklog: 7 }));
    expect(w).toMatchObject({ index: 3, t_s: 60, reads_per_s: 10, read_p50_ms: 50, read_p99_ms: 99, read_errors: 7, points_per_s: 100, events_per_s: 2, deliveries_per_s: 20 });
    expect(w).toMatchObject({ event_p50_ms: 7, event_p99_ms: 9, api_cpu_pct: 20, dispatcher_cpu_pct: 5, services_cpu_pct: 30, ingest_backlog_messages: 7 });
  });

  it('reads an unlabelled gauge from Prometheus text', () => {
    const text = '# HELP nodejs_heap_size_used_bytes Process heap size used from Node.js in bytes.\n# TYPE nodejs_heap_size_used_bytes gauge\nnodejs_heap_size_used_bytes 52428800\nnodejs_heap_size_total_bytes 8e7\n';
    expect(gaugeValue(text, 'nodejs_heap_size_used_bytes')).toBe(52428800);
    expect(gaugeValue(text, 'nodejs_heap_size_total_bytes')).toBe(80000000);
    expect(gaugeValue(text, 'nodejs_external_memory_bytes')).toBeNull();
  });

  it('has no percentiles in a window without samples, and no services CPU off this machine', () => {
    const w = summarizeWindow(0, 10, 10, true, emptyCollector(), readings({ servicesCpuS: null }), readings({ servicesCpuS: null }));
    expect([w.read_p99_ms, w.event_p99_ms, w.services_cpu_pct]).toEqual([null, null, null]);
  });

  it('takes the first 20 % of the windows as warm-up, at least one and never all', () => {
    expect([warmupWindows(1), warmupWindows(2), warmupWindows(6), warmupWindows(120)]).toEqual([0, 1, 2, 24]);
    expect([comparedWindows(6), comparedWindows(120)]).toEqual([1, 12]);
  });

  it('schedules whole units at a constant rate, catching up after a late tick', () => {
    expect(dueUnits(100, 1000, 0)).toBe(100);
    expect(dueUnits(100, 1500, 100)).toBe(50);
    expect(dueUnits(2.5, 1000, 2)).toBe(0);
    expect(dueUnits(10, 100, 5)).toBe(0);
    expect(halfOf(11)).toBe(6);
    expect(halfOf(0.4)).toBe(1);
  });
});

describe('soak verdict', () => {
  it('passes a flat run without errors', () => {
    const v = verdict(windowsOf(120, () => ({})), noErrors());
    expect(v.pass).toBe(true);
    expect(v.errors).toBe(0);
    expect(v.checks.map((c) => c.name)).toEqual(['zero errors', 'api RSS growth after warm-up', 'dispatcher RSS growth after warm-up', 'read p99 stable', 'event commit → receipt p99 stable']);
  });

  it('counts every kind of error', () => {
    const v = verdict(windowsOf(10, () => ({})), { readErrors: 1, lostPoints: 2, deadLettered: 3, missingDeliveries: 4, duplicateDeliveries: 5, other: ['api exited'] });
    expect(v.errors).toBe(16);
    expect(v.pass).toBe(false);
    expect(v.checks[0]).toMatchObject({ name: 'zero errors', pass: false });
    expect(v.checks[0].detail).toContain('api exited');
  });

  it('ignores growth during the warm-up and fails 10 % growth after it', () => {
    const warmGrowth = windowsOf(100, (i) => ({ api_rss_mb: i < 20 ? 100 + i * 5 : 200 }));
    expect(verdict(warmGrowth, noErrors()).pass).toBe(true);
    const leak = windowsOf(100, (i) => ({ api_rss_mb: 200 + i * 0.5 }));
    const check = verdict(leak, noErrors()).checks.find((c) => c.name === 'api RSS growth after warm-up');
    expect(check?.pass).toBe(false);
    const justUnder = windowsOf(100, (i) => ({ dispatcher_rss_mb: i >= 90 ? 142.9 : 130 }));
    expect(verdict(justUnder, noErrors()).pass).toBe(true);
  });

  it('judges p99 on the medians of the early and late windows: one noisy window decides nothing', () => {
    const spike = windowsOf(100, (i) => ({ read_p99_ms: i === 99 ? 400 : 20 }));
    expect(verdict(spike, noErrors()).pass).toBe(true);
    const drift = windowsOf(100, (i) => ({ read_p99_ms: i >= 90 ? 31 : 20 }));
    expect(verdict(drift, noErrors()).checks.find((c) => c.name === 'read p99 stable')?.pass).toBe(false);
    const small = windowsOf(100, (i) => ({ event_p99_ms: i >= 90 ? 6 : 2 }));
    expect(verdict(small, noErrors()).pass).toBe(true); // 3 × but only 4 ms more
  });

  it('does not assess stability with fewer than two windows after warm-up', () => {
    const v = verdict(windowsOf(2, () => ({})), noErrors());
    expect(v.checks.map((c) => c.name)).toEqual(['zero errors', 'RSS growth and p99 stability']);
    expect(v.pass).toBe(true);
  });
});

describe('soak options', () => {
  it('defaults to 30 minutes sampled every 15 s, and accepts both --name value and --name=value', () => {
    expect(parseSoakOptions([], {})).toMatchObject({ minutes: 30, sampleSeconds: 15, rateReads: null, endpoints: 10 });
    expect(parseSoakOptions(['--minutes', '1', '--rate-reads=50'], {})).toMatchObject({ minutes: 1, sampleSeconds: 10, rateReads: 50 });
    expect(parseSoakOptions(['--help'], {})).toBe('help');
  });

  it('rejects unknown options and bad values', () => {
    expect(() => parseSoakOptions(['--minute', '1'], {})).toThrow(/unknown argument/);
    expect(() => parseSoakOptions(['--minutes', '-1'], {})).toThrow(/positive/);
    expect(() => parseSoakOptions(['--minutes'], {})).toThrow(/needs a value/);
    expect(() => parseSoakOptions(['--endpoints', '1.5'], {})).toThrow(/integer/);
  });
});

describe('soak chart and table', () => {
  it('rounds axes up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect([niceCeiling(0), niceCeiling(0.7), niceCeiling(13), niceCeiling(230), niceCeiling(4100)]).toEqual([1, 1, 20, 250, 5000]);
  });

  it('writes a well-formed SVG with one polyline per series and a gap for missing values', () => {
    const windows = windowsOf(10, (i) => ({ event_p99_ms: i === 5 ? null : 30 }));
    const svg = renderTimeChart(soakChart(windows, 'Soak <test> & chart'));
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('Soak &lt;test&gt; &amp; chart');
    expect(svg).toContain('warm-up');
    // 2 RSS + heap + 4 latency (event p99 split in two by the gap; event p50 empty) + 2 throughput + 1 ingestion + 4 CPU
    expect(svg.match(/<polyline/g)?.length).toBe(3 + 3 + 2 + 1 + 4 + 1);
    expect(svg).not.toMatch(/NaN|undefined/);
  });

  it('renders one table row per window, warm-up marked', () => {
    const table = windowsTable(windowsOf(5, () => ({})));
    const lines = table.split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[2]).toContain('1 (warm-up)');
    expect(lines[6]).toMatch(/^\| 5 \|/);
  });
});
