/**
 * The pure part of `npm run bench -- --scale`: which sizes, how the telemetry grid grows from one
 * size to the next without reseeding, and how a measure at the largest size compares with the
 * smallest. No I/O here (unit tested in test/bench/scale.spec.ts).
 */

export const SCALE_DEVICES = 1000;
/** 24 months of history, as days (730): the grid's span. */
export const SCALE_SPAN_DAYS = 730;
export const DAY_MS = 86_400_000;
/** Every grid point sits this many milliseconds after its slot start: never on a whole second, so never on an ingested (whole-minute) point. */
export const GRID_OFFSET_MS = 17;
/** "within 1.2 × of its smallest-size figure". */
export const SCALE_FACTOR_TARGET = 1.2;

export const FULL_SIZES: readonly number[] = [1_000_000, 10_000_000, 50_000_000];
export const QUICK_SIZES: readonly number[] = [1_000_000, 5_000_000];

/**
 * The grid: `slots` time slots per device over the span (the largest size's points per device);
 * at size i a device has a point in every slot j with j % steps[i] === 0. The steps divide one
 * another (each larger size's step divides the smaller size's), so growing from size i-1 to i adds
 * exactly the slots with j % steps[i] === 0 and j % steps[i-1] !== 0 — the points already stored
 * stay, nothing is reseeded.
 */
export interface GridPlan {
  devices: number;
  sizes: number[];
  slots: number;
  steps: number[];
  /** Width of one slot in milliseconds (an integer). */
  slotMs: number;
  spanMs: number;
}

export function gridPlan(sizes: readonly number[], devices = SCALE_DEVICES, spanDays = SCALE_SPAN_DAYS): GridPlan {
  if (sizes.length === 0) throw new Error('at least one size');
  for (let i = 1; i < sizes.length; i++) if (sizes[i] <= sizes[i - 1]) throw new Error(`sizes must grow: ${sizes.join(', ')}`);
  const perDevice = sizes.map((size) => {
    if (!Number.isInteger(size / devices)) throw new Error(`${size} points are not a whole number per device (${devices} devices)`);
    return size / devices;
  });
  const slots = perDevice[perDevice.length - 1];
  const steps = perDevice.map((n) => {
    if (!Number.isInteger(slots / n)) throw new Error(`${n * devices} points do not fit the grid of ${slots} slots per device`);
    return slots / n;
  });
  for (let i = 1; i < steps.length; i++) {
    if (steps[i - 1] % steps[i] !== 0) throw new Error(`size ${sizes[i - 1]} is not a sub-grid of ${sizes[i]} (steps ${steps[i - 1]} and ${steps[i]})`);
  }
  const spanMs = spanDays * DAY_MS;
  const slotMs = Math.floor(spanMs / slots);
  if (slotMs < 1000) throw new Error(`too many points: a slot would be ${slotMs} ms`);
  return { devices, sizes: [...sizes], slots, steps, slotMs, spanMs };
}

/** Slots added per device when growing to size `index` (all of them for the first size). */
export function addedSlots(plan: GridPlan, index: number): number {
  const step = plan.steps[index];
  const count = Math.ceil(plan.slots / step);
  if (index === 0) return count;
  return count - Math.ceil(plan.slots / plan.steps[index - 1]);
}

/** The growth step as [from, to) slot ranges of about `chunkSlots` slots (one INSERT each). */
export function slotChunks(plan: GridPlan, chunkSlots: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let from = 0; from < plan.slots; from += chunkSlots) out.push([from, Math.min(plan.slots, from + chunkSlots)]);
  return out;
}

/** Whether slot j holds a point at size `index` (the reference the SQL implements). */
export const slotAtSize = (plan: GridPlan, index: number, j: number): boolean => j % plan.steps[index] === 0;

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32, the fuzzer's): the same requests at every size. */
export { prng as seededRandom } from '../../fuzz/hostile-requests';

/** Whole UTC months [start, end) that lie inside [fromMs, toMs]. */
export function wholeMonths(fromMs: number, toMs: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  const first = new Date(fromMs);
  let year = first.getUTCFullYear();
  let month = first.getUTCMonth();
  if (Date.UTC(year, month, 1) < fromMs) month++;
  for (;;) {
    const start = Date.UTC(year, month, 1);
    const end = Date.UTC(year, month + 1, 1);
    if (end > toMs) break;
    out.push({ start, end });
    month++;
    if (month === 12) {
      month = 0;
      year++;
    }
  }
  return out;
}

export type Direction = 'lower-is-better' | 'higher-is-better' | 'info';

export interface SizeFigure {
  points: number;
  value: number;
}

export interface ScaleVerdict {
  /** Largest size's figure / smallest size's figure. */
  ratio: number;
  target: string;
  pass: boolean | null;
}

/**
 * Ratio of the largest size's figure to the smallest's and whether it is within the factor: a cost
 * (latency) may grow to `factor` ×, a throughput may fall to 1 / `factor` of its smallest-size figure.
 */
export function scaleVerdict(figures: readonly SizeFigure[], direction: Direction, factor = SCALE_FACTOR_TARGET): ScaleVerdict {
  if (figures.length < 2) throw new Error('a verdict needs at least two sizes');
  const sorted = [...figures].sort((a, b) => a.points - b.points);
  const small = sorted[0];
  const large = sorted[sorted.length - 1];
  const ratio = large.value / small.value;
  const smallName = formatPoints(small.points);
  if (direction === 'info') return { ratio, target: 'reported', pass: null };
  if (direction === 'lower-is-better') return { ratio, target: `≤ ${factor} × its ${smallName} figure`, pass: Number.isFinite(ratio) && ratio <= factor };
  const floor = 1 / factor;
  return { ratio, target: `≥ ${floor.toFixed(2)} × its ${smallName} figure (within ${factor} ×)`, pass: Number.isFinite(ratio) && ratio >= floor - 1e-9 };
}

/** 1000000 → "1 M", 50000000 → "50 M", 500000 → "500 k". */
export function formatPoints(points: number): string {
  if (points >= 1_000_000) return `${trim(points / 1_000_000)} M`;
  if (points >= 1_000) return `${trim(points / 1_000)} k`;
  return String(points);
}

const trim = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));
