import { OUTSIDE_LIMITS, type OutsideLimit, type Thresholds } from '../devices';
import { MktAccumulator } from './mean-kinetic-temperature';

export interface SeriesSummary {
  /** Points (with or without a temperature). */
  points: number;
  temperature: { min: number; max: number; avg: number; mkt: number } | null;
  /** Milliseconds spent beyond each limit that is set (null: limit not set). */
  outsideMs: Record<OutsideLimit, number | null>;
}

interface Reading {
  at: number;
  value: number;
}

const violates = (limit: OutsideLimit, value: number, bound: number): boolean => (limit.endsWith('_min') ? value < bound : value > bound);

/**
 * Statistics of one device's points, fed in time order. A reading beyond a limit counts the
 * time until the next reading of the same measurement (the last reading counts nothing: how long
 * it lasted is unknown).
 */
export class SeriesStats {
  private points = 0;
  private count = 0;
  private sum = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  readonly mkt = new MktAccumulator();
  private readonly outside: Record<OutsideLimit, number> = { temperature_min: 0, temperature_max: 0, humidity_min: 0, humidity_max: 0 };
  private lastTemperature: Reading | null = null;
  private lastHumidity: Reading | null = null;

  constructor(private readonly thresholds: Thresholds) {}

  add(at: Date, temperature: number | null, humidity: number | null): void {
    const time = at.getTime();
    this.points++;
    if (temperature !== null) {
      this.count++;
      this.sum += temperature;
      this.min = Math.min(this.min, temperature);
      this.max = Math.max(this.max, temperature);
      this.mkt.add(temperature);
      this.lastTemperature = this.advance(this.lastTemperature, { at: time, value: temperature }, ['temperature_min', 'temperature_max']);
    }
    if (humidity !== null) this.lastHumidity = this.advance(this.lastHumidity, { at: time, value: humidity }, ['humidity_min', 'humidity_max']);
  }

  private advance(previous: Reading | null, next: Reading, limits: OutsideLimit[]): Reading {
    if (previous) {
      for (const limit of limits) {
        const bound = this.thresholds[limit];
        if (bound !== null && violates(limit, previous.value, bound)) this.outside[limit] += next.at - previous.at;
      }
    }
    return next;
  }

  summary(): SeriesSummary {
    return summarize([this], this.thresholds);
  }

  /** The running totals, for combining several devices. */
  totals(): { points: number; count: number; sum: number; min: number; max: number; outside: Record<OutsideLimit, number> } {
    return { points: this.points, count: this.count, sum: this.sum, min: this.min, max: this.max, outside: this.outside };
  }
}

/**
 * Several devices together: min/max/avg/MKT over all their readings, and the time beyond each
 * limit summed over the devices (device-time). A limit counts as set when any device has it.
 */
export function summarize(series: readonly SeriesStats[], thresholds: Thresholds | readonly Thresholds[]): SeriesSummary {
  const all = Array.isArray(thresholds) ? (thresholds as readonly Thresholds[]) : [thresholds as Thresholds];
  const mkt = new MktAccumulator();
  let points = 0;
  let count = 0;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  const outside: Record<OutsideLimit, number> = { temperature_min: 0, temperature_max: 0, humidity_min: 0, humidity_max: 0 };
  for (const s of series) {
    const p = s.totals();
    points += p.points;
    count += p.count;
    sum += p.sum;
    min = Math.min(min, p.min);
    max = Math.max(max, p.max);
    mkt.merge(s.mkt);
    for (const limit of OUTSIDE_LIMITS) outside[limit] += p.outside[limit];
  }
  const celsius = mkt.celsius();
  return {
    points,
    temperature: count > 0 && celsius !== null ? { min, max, avg: sum / count, mkt: celsius } : null,
    outsideMs: Object.fromEntries(OUTSIDE_LIMITS.map((limit) => [limit, all.some((t) => t[limit] !== null) ? outside[limit] : null])) as Record<OutsideLimit, number | null>,
  };
}
