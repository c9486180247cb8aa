import { endpointHealth, healthSeries, latencyPercentile, LATENCY_BUCKET_BOUNDS_MS, successTotals, windowStart } from './health';

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
