import type { PageRequest } from '../common/paginator';
import { bucketWindow, type BucketWindow } from './telemetry-buckets';

/** The keyset position of a time-ordered page (its first element, an ISO timestamp), or null. */
export const positionDate = (page: PageRequest): Date | null => {
  const value = page.after?.[0];
  return typeof value === 'string' ? new Date(value) : null;
};

/** The buckets of the page: up to limit + 1 consecutive ones after the cursor, inside [from, to). */
export function pageBucketWindow(widthMs: number, range: { from: Date; to: Date }, page: PageRequest): BucketWindow | null {
  const after = positionDate(page);
  const start = after ? new Date(Math.max(range.from.getTime(), after.getTime() + widthMs)) : range.from;
  return bucketWindow(widthMs, start, range.to, page.limit + 1);
}
