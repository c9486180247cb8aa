/** Downsampling widths accepted by `bucket`, in milliseconds. */
export const BUCKET_WIDTHS = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '1d': 86_400_000,
} as const;

export type BucketName = keyof typeof BUCKET_WIDTHS;
export const BUCKET_NAMES = Object.keys(BUCKET_WIDTHS) as BucketName[];

export interface BucketWindow {
  /** Start of the first bucket of the page (aligned to the UTC epoch). */
  first: Date;
  /** Start of the last bucket of the page. */
  last: Date;
  /** Points aggregated: [from, to) clipped to the page's buckets. */
  pointsFrom: Date;
  pointsTo: Date;
}

/**
 * The buckets of one page: up to `count` consecutive buckets starting with the one that holds
 * `start`, none starting at or after `to`. Buckets are aligned to the UTC epoch, so the first
 * and last may be partial (clipped to the range). Returns null when no bucket is left.
 */
export function bucketWindow(widthMs: number, start: Date, to: Date, count: number): BucketWindow | null {
  const first = Math.floor(start.getTime() / widthMs) * widthMs;
  if (first >= to.getTime()) return null;
  const available = Math.ceil((to.getTime() - first) / widthMs);
  const last = first + (Math.min(count, available) - 1) * widthMs;
  return {
    first: new Date(first),
    last: new Date(last),
    pointsFrom: start,
    pointsTo: new Date(Math.min(to.getTime(), last + widthMs)),
  };
}
