import { toThresholds } from '../devices';
import { meanKineticTemperature, MKT_ACTIVATION_OVER_R_K, MktAccumulator } from './mean-kinetic-temperature';
import { pdfText } from './pdf-text';
import { SeriesStats, summarize } from './series-stats';

const MIN = 60_000;
const t = (minutes: number): Date => new Date(Date.UTC(2025, 6, 1) + minutes * MIN);

describe('mean kinetic temperature', () => {
  it('uses ΔH/R = 83.144 kJ/mol ÷ 8.3144 J/(mol·K) = 10000 K', () => {
    expect(MKT_ACTIVATION_OVER_R_K).toBeCloseTo(10_000, 9);
  });

  it('matches hand-computed values: MKT = (ΔH/R) / −ln(mean(exp(−(ΔH/R)/T))) − 273.15', () => {
    // 10000 / -ln((e^(-10000/275.15) + e^(-10000/281.15) + e^(-10000/287.15)) / 3) - 273.15
    expect(meanKineticTemperature([2, 8, 14])).toBeCloseTo(9.36627, 4);
    expect(meanKineticTemperature([4, 6, 10, 3])).toBeCloseTo(6.20885, 4);
    expect(meanKineticTemperature([5, 5, 5])).toBeCloseTo(5, 9);
    expect(meanKineticTemperature([])).toBeNull();
  });

  it('weighs excursions above the arithmetic mean, and merges across devices', () => {
    expect(meanKineticTemperature([2, 8, 14]) as number).toBeGreaterThan(8);
    const a = new MktAccumulator();
    const b = new MktAccumulator();
    [2, 8].forEach((v) => a.add(v));
    b.add(14);
    a.merge(b);
    expect(a.celsius()).toBeCloseTo(9.36627, 4);
  });
});

describe('series statistics', () => {
  it('counts the time from a reading beyond a limit to the next reading, per limit', () => {
    const stats = new SeriesStats(toThresholds({ temperature_min: 2, temperature_max: 8, humidity_max: 70 }));
    // 0: 5, 10: 9 (above), 20: 10 (above), 35: 5, 40: 1 (below), 50: 4 (last)
    for (const [minute, value, humidity] of [[0, 5, 60], [10, 9, 75], [20, 10, null], [35, 5, 60], [40, 1, 80], [50, 4, null]] as Array<[number, number, number | null]>) {
      stats.add(t(minute), value, humidity);
    }
    const summary = stats.summary();
    expect(summary.points).toBe(6);
    expect(summary.temperature).toEqual({ min: 1, max: 10, avg: 34 / 6, mkt: expect.any(Number) });
    expect(summary.outsideMs).toEqual({ temperature_min: 10 * MIN, temperature_max: 25 * MIN, humidity_min: null, humidity_max: (25 + 0) * MIN });
  });

  it('sums device-time over several devices and reports a limit set on any of them', () => {
    const a = new SeriesStats(toThresholds({ temperature_max: 8 }));
    const b = new SeriesStats(toThresholds({}));
    a.add(t(0), 9, null);
    a.add(t(5), 9, null);
    a.add(t(10), 5, null);
    b.add(t(0), 20, null);
    b.add(t(5), 20, null);
    const all = summarize([a, b], [toThresholds({ temperature_max: 8 }), toThresholds({})]);
    expect(all.points).toBe(5);
    expect(all.temperature).toMatchObject({ min: 5, max: 20, avg: 63 / 5 });
    expect(all.temperature?.mkt).toBeCloseTo(meanKineticTemperature([9, 9, 5, 20, 20]) as number, 9);
    expect(all.outsideMs).toEqual({ temperature_min: null, temperature_max: 10 * MIN, humidity_min: null, humidity_max: null });
  });

  it('has no temperature figures without readings', () => {
    const stats = new SeriesStats(toThresholds({}));
    stats.add(t(0), null, 50);
    expect(stats.summary()).toEqual({ points: 1, temperature: null, outsideMs: { temperature_min: null, temperature_max: null, humidity_min: null, humidity_max: null } });
  });
});

describe('pdfText', () => {
  it('keeps what the report font prints (Turkish, Greek, Cyrillic) and replaces the rest', () => {
    expect(pdfText('Vaccines 2–8 °C, café')).toBe('Vaccines 2–8 °C, café');
    expect(pdfText('İzmir → Ankara, Ayşe Yılmaz, Çağlar Öğüt')).toBe('İzmir → Ankara, Ayşe Yılmaz, Çağlar Öğüt');
    expect(pdfText('Δ Москва ≤ 8')).toBe('Δ Москва ≤ 8');
    expect(pdfText('冷链\nｖ')).toBe('?? v');
  });
});
