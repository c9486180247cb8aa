export interface ReportPoint {
  device_id: string;
  recorded_at: Date;
  temperature: number | null;
  humidity: number | null;
  light: number | null;
  shock: number | null;
  battery: number | null;
  latitude: number | null;
  longitude: number | null;
}

export const POINT_BATCH_SIZE = 10_000;

/** A keyset page of points: those after `after` (in (recorded_at, device_id) order), at most `limit`. */
export type PointPage = (after: ReportPoint | null, limit: number) => Promise<ReportPoint[]>;

/**
 * Reads points in (recorded_at, device_id) order, a keyset page at a time, so that a long window
 * never sits in memory at once. The pages come from the statements of reports.repository.ts.
 */
export async function forEachPointBatch(
  page: PointPage,
  handle: (points: ReportPoint[]) => void | Promise<void>,
  batchSize = POINT_BATCH_SIZE,
): Promise<void> {
  let after: ReportPoint | null = null;
  for (;;) {
    const rows = await page(after, batchSize);
    if (rows.length === 0) return;
    await handle(rows);
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1];
  }
}
