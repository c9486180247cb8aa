import { addedSlots, FULL_SIZES, gridPlan, QUICK_SIZES, scaleVerdict, seededRandom, slotAtSize, slotChunks, wholeMonths } from '../../bench/scale/plan';
import { scaleChart, scaleMarkdown, scaleRows, type SizeResult } from '../../bench/scale/scale-report';
import { escapeXml, linearTicks, lineChartSvg } from '../../bench/scale/svg-chart';

describe('bench --scale: the grid', () => {
  it('nests 1 M, 10 M and 50 M points of 1,000 devices over 730 days in one grid of whole-millisecond slots', () => {
    const plan = gridPlan(FULL_SIZES);
    expect(plan.slots).toBe(50_000);
    expect(plan.steps).toEqual([50, 5, 1]);
    expect(plan.slotMs).toBe(1_261_440);
    expect(plan.slotMs * plan.slots).toBe(730 * 86_400_000);
    expect(gridPlan(QUICK_SIZES).steps).toEqual([5, 1]);
  });

  it('adds exactly the missing slots at each growth step, so the sizes come out exact', () => {
    const plan = gridPlan([1_000, 10_000, 50_000], 10);
    let stored = 0;
    plan.sizes.forEach((size, index) => {
      const added = Array.from({ length: plan.slots }, (_, j) => j).filter((j) => slotAtSize(plan, index, j) && (index === 0 || !slotAtSize(plan, index - 1, j)));
      expect(added).toHaveLength(addedSlots(plan, index));
      stored += added.length * plan.devices;
      expect(stored).toBe(size);
    });
  });

  it('covers every slot once with its chunks', () => {
    const plan = gridPlan(FULL_SIZES);
    const chunks = slotChunks(plan, 1_000);
    expect(chunks[0]).toEqual([0, 1_000]);
    expect(chunks.reduce((n, [from, to]) => n + (to - from), 0)).toBe(plan.slots);
  });

  it('refuses sizes that do not nest or do not divide over the devices', () => {
    expect(() => gridPlan([2_000_000, 3_000_000])).toThrow(/sub-grid|fit/);
    expect(() => gridPlan([1_000_500])).toThrow(/whole number per device/);
    expect(() => gridPlan([5_000_000, 1_000_000])).toThrow(/grow/);
  });

  it('lists the whole months inside a range and repeats its random sequence', () => {
    const months = wholeMonths(Date.UTC(2025, 0, 15), Date.UTC(2025, 3, 2));
    expect(months.map((m) => new Date(m.start).toISOString().slice(0, 7))).toEqual(['2025-02', '2025-03']);
    expect(months[1].end).toBe(Date.UTC(2025, 3, 1));
    const a = seededRandom(16);
    const b = seededRandom(16);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('bench --scale: ratios and targets', () => {
  it('divides the largest size figure by the smallest, whatever the order given', () => {
    const verdict = scaleVerdict([{ points: 50e6, value: 3.3 }, { points: 1e6, value: 3 }, { points: 10e6, value: 9 }], 'lower-is-better');
    expect(verdict.ratio).toBeCloseTo(1.1);
    expect(verdict.pass).toBe(true);
    expect(verdict.target).toBe('≤ 1.2 × its 1 M figure');
    expect(scaleVerdict([{ points: 1e6, value: 2 }, { points: 50e6, value: 2.5 }], 'lower-is-better').pass).toBe(false);
  });

  it('lets a throughput fall to 1 / 1.2 of its smallest-size figure and no further', () => {
    expect(scaleVerdict([{ points: 1e6, value: 60_000 }, { points: 50e6, value: 50_000 }], 'higher-is-better').pass).toBe(true);
    expect(scaleVerdict([{ points: 1e6, value: 60_000 }, { points: 50e6, value: 49_000 }], 'higher-is-better').pass).toBe(false);
    expect(scaleVerdict([{ points: 1e6, value: 1 }, { points: 5e6, value: 4 }], 'info')).toEqual({ ratio: 4, target: 'reported', pass: null });
  });
});

const result = (size: number, ms: number, pointsPerSecond: number): SizeResult => ({
  size,
  facts: { points: size + 40_800, databaseBytes: size * 100, telemetryBytes: size * 90, telemetryIndexBytes: size * 30 },
  latencies: {
    'telemetry-latest-day': { p50: ms, p99: ms * 3, rounds: { p50: [ms], p99: [ms * 3] } },
    'telemetry-old-month': { p50: ms, p99: ms * 3, rounds: { p50: [ms], p99: [ms * 3] } },
    tracking: { p50: ms, p99: ms * 3, rounds: { p50: [ms], p99: [ms * 3] } },
    'device-list': { p50: ms, p99: ms * 3, rounds: { p50: [ms], p99: [ms * 3] }, cpuMs: { api: ms, database: 1 } },
  },
  ingest: [pointsPerSecond - 1000, pointsPerSecond, pointsPerSecond + 1000],
  ingestCpuUs: { api: 6, database: 12 },
  load: [1.5, 2, 2.5],
  seedSeconds: 10,
  vacuumSeconds: 5,
});

describe('bench --scale: report rows, table and chart', () => {
  const results = [result(1e6, 2, 60_000), result(50e6, 2.6, 59_000)];

  it('writes latest.json rows named scale-* with ratio, target and pass', () => {
    const rows = scaleRows(results, 1.2, 3);
    expect(rows.every((r) => r.scenario.startsWith('scale-'))).toBe(true);
    const p50 = rows.find((r) => r.scenario === 'scale-tracking' && r.metric.endsWith('p50'));
    expect(p50).toMatchObject({ project: 2.6, baseline: 2, pass: false, status: 'measured' });
    expect(p50?.ratio).toBeCloseTo(1.3);
    expect(p50?.target).toBe('≤ 1.2 × its 1 M figure');
    expect(p50?.sizes).toEqual([{ points: 1e6, stored: 1_040_800, value: 2 }, { points: 50e6, stored: 50_040_800, value: 2.6 }]);
    const ingest = rows.find((r) => r.scenario === 'scale-ingest');
    expect(ingest).toMatchObject({ project: 59_000, baseline: 60_000, pass: true });
    expect(rows.filter((r) => r.scenario === 'scale-database-size').every((r) => r.status === 'info' && r.pass === null)).toBe(true);
  });

  it('renders the markdown table with a column per size', () => {
    const table = scaleMarkdown(results, 1.2);
    expect(table.split('\n')[0]).toBe('| measure | 1 M | 50 M | ratio 50 M / 1 M | target | result |');
    expect(table).toContain('| 2.60 ms | 1.30 | ≤ 1.2 × its 1 M figure | **FAIL** |');
  });

  it('draws a well-formed SVG with one line per charted figure and the target line', () => {
    const svg = scaleChart(results, 1.2, 'machine <x> & y');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(9);
    expect(svg).toContain('target 1.2 ×');
    expect(svg).toContain('machine &lt;x&gt; &amp; y');
    expect(svg).not.toMatch(/NaN|Infinity/);
    // The CPU chart: only the figures measured at every size (here the device list and ingestion).
    const cpu = scaleChart(results, 1.2, 'm', 'cpu');
    expect(cpu.match(/<polyline /g)).toHaveLength(2);
    expect(cpu).toContain('>device-list</text>');
  });

  it('plots values on a log x axis and linear y ticks from zero', () => {
    const svg = lineChartSvg({ title: 't', xLabel: 'x', yLabel: 'y', series: [{ name: 's', values: [{ x: 1e6, y: 1 }, { x: 1e7, y: 1 }, { x: 1e8, y: 1 }] }], width: 400, height: 300 });
    const [x1, x2, x3] = [...svg.matchAll(/<circle cx="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(x2 - x1).toBeCloseTo(x3 - x2, 0);
    expect(linearTicks(1.32)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4]);
    expect(escapeXml('"a" < b')).toBe('&quot;a&quot; &lt; b');
  });
});
