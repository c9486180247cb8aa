import type { KeysetPage } from '@app/vocabulary';
import { bucketWindow, type BucketWindow } from './telemetry-buckets';

/** The buckets of the page: up to limit + 1 consecutive ones after the cursor, inside [from, to). */
export function pageBucketWindow(widthMs: number, range: { from: Date; to: Date }, page: KeysetPage<Date>): BucketWindow | null {
  const after = page.after;
  const start = after ? new Date(Math.max(range.from.getTime(), after.getTime() + widthMs)) : range.from;
  return bucketWindow(widthMs, start, range.to, page.limit + 1);
}
