import { endpointHealth, exactPercentile, healthSeries, latencyPercentile, LATENCY_BUCKET_BOUNDS_MS, minuteSeries, successTotals, windowStart } from './health';

const buckets = (counts: Record<number, number>): number[] => Array.from({ length: LATENCY_BUCKET_BOUNDS_MS.length + 1 }, (_, i) => counts[i] ?? 0);
const NOW = new Date('2026-11-26T10:17:00Z');

describe('delivery health', () => {
  it('takes a percentile as the upper bound of its bucket, capped at the slowest attempt', () => {
    // 90 attempts under 10 ms, 9 under 250 ms, 1 over 10 s (12.3 s).
    const histogram = buckets({ 0: 90, 4: 9, 10: 1 });
    expect(latencyPercentile(histogram, 12_300, 0.5)).toBe(10);
    expect(latencyPercentile(histogram, 12_300, 0.99)).toBe(250);
    expect(latencyPercentile(histogram, 12_300, 1)).toBe(12_300);
    // The slowest attempt bounds the estimate: all under 10 ms, the slowest 4 ms.
    expect(latencyPercentile(buckets({ 0: 3 }), 4, 0.99)).toBe(4);
    expect(latencyPercentile(buckets({}), 0, 0.5)).toBeNull();
  });

  it('fills every hour of the window, oldest first, the current hour last', () => {
    const rows = [
      { hour: new Date('2026-11-26T08:00:00Z'), succeeded: 0, failed: 5, latency_buckets: buckets({ 5: 5 }), max_duration_ms: 480 },
      { hour: new Date('2026-11-26T10:00:00Z'), succeeded: 7, failed: 0, latency_buckets: buckets({ 1: 7 }), max_duration_ms: 20 },
      { hour: new Date('2026-11-20T10:00:00Z'), succeeded: 1, failed: 0, latency_buckets: buckets({ 1: 1 }), max_duration_ms: 11 },
    ];
    const series = healthSeries(rows, NOW, 24);
    expect(series.hours).toHaveLength(24);
    expect(series.hours[0].hour).toBe('2026-11-25T11:00:00.000Z');
    expect(series.hours[23]).toEqual({ hour: '2026-11-26T10:00:00.000Z', succeeded: 7, failed: 0, p50_ms: 20, p99_ms: 20 });
    expect(series.hours[21]).toEqual({ hour: '2026-11-26T08:00:00.000Z', succeeded: 0, failed: 5, p50_ms: 480, p99_ms: 480 });
    expect(series.hours[22]).toEqual({ hour: '2026-11-26T09:00:00.000Z', succeeded: 0, failed: 0, p50_ms: null, p99_ms: null });
    expect(series.totals).toEqual({ attempts: 12, succeeded: 7, failed: 5, success_rate: 7 / 12 });
    expect(series.p50_ms).toBe(25);
    expect(series.p99_ms).toBe(480);

    const week = endpointHealth(rows, NOW).last_7_days;
    expect(week.hours).toHaveLength(168);
    expect(week.totals.attempts).toBe(13);
    expect(windowStart(NOW, 168).toISOString()).toBe('2026-11-19T11:00:00.000Z');
  });

  it('has no success rate without attempts', () => {
    expect(successTotals(0, 0)).toEqual({ attempts: 0, succeeded: 0, failed: 0, success_rate: null });
  });
});

describe('delivery health of the last hour, per minute (issue 31 item 5)', () => {
  const at = (iso: string, outcome: string, duration_ms: number) => ({ attempted_at: new Date(iso), outcome, duration_ms });

  it('counts each minute of the last 60 from the attempt log, with exact percentiles', () => {
    const series = minuteSeries(
      [
        at('2026-11-26T10:17:30Z', 'succeeded', 40),
        at('2026-11-26T10:17:05Z', 'succeeded', 20),
        at('2026-11-26T10:12:59Z', 'retry', 10_000),
        at('2026-11-26T10:12:00Z', 'failed', 300),
        at('2026-11-26T09:18:00Z', 'succeeded', 5), // the first minute of the window
        at('2026-11-26T09:17:59Z', 'succeeded', 5), // before it: not counted
      ],
      NOW,
      false,
    );
    expect(series.minutes).toHaveLength(60);
    expect(series.minutes[0]).toEqual({ minute: '2026-11-26T09:18:00.000Z', succeeded: 1, failed: 0, p50_ms: 5, p99_ms: 5 });
    expect(series.minutes[59]).toEqual({ minute: '2026-11-26T10:17:00.000Z', succeeded: 2, failed: 0, p50_ms: 20, p99_ms: 40 });
    expect(series.minutes[54]).toEqual({ minute: '2026-11-26T10:12:00.000Z', succeeded: 0, failed: 2, p50_ms: 300, p99_ms: 10_000 });
    expect(series.minutes[30]).toEqual({ minute: '2026-11-26T09:48:00.000Z', succeeded: 0, failed: 0, p50_ms: null, p99_ms: null });
    expect(series.totals).toEqual(successTotals(3, 2));
    expect([series.p50_ms, series.p99_ms]).toEqual([40, 10_000]);
    expect(series.covered_from).toBeNull();
  });

  it('says where a full attempt log begins when it does not reach back an hour', () => {
    const recent = [at('2026-11-26T10:16:00Z', 'succeeded', 9), at('2026-11-26T10:01:30Z', 'succeeded', 9)];
    expect(minuteSeries(recent, NOW, true).covered_from).toBe('2026-11-26T10:01:30.000Z');
    expect(minuteSeries(recent, NOW, false).covered_from).toBeNull();
    // A full log that reaches back past the hour covers it.
    expect(minuteSeries([...recent, at('2026-11-26T08:00:00Z', 'failed', 1)], NOW, true).covered_from).toBeNull();
  });

  it('takes nearest-rank percentiles', () => {
    expect(exactPercentile([], 0.5)).toBeNull();
    expect(exactPercentile([7], 0.99)).toBe(7);
    expect(exactPercentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(exactPercentile(Array.from({ length: 100 }, (_, i) => i + 1), 0.99)).toBe(99);
  });

  it('is part of an endpoint\'s health', () => {
    expect(endpointHealth([], NOW, { attempts: [at('2026-11-26T10:17:01Z', 'succeeded', 12)], logFull: false }).last_hour.totals.attempts).toBe(1);
    expect(endpointHealth([], NOW).last_hour.minutes.every((m) => m.succeeded + m.failed === 0)).toBe(true);
  });
});
