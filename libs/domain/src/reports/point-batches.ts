import type { EntityManager } from 'typeorm';

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

/**
 * Reads the points of `source` (a SELECT of the telemetry columns) in (recorded_at, device_id)
 * order, a keyset page at a time, so that a long window never sits in memory at once.
 */
export async function forEachPointBatch(
  manager: EntityManager,
  source: { sql: string; params: unknown[] },
  handle: (points: ReportPoint[]) => void | Promise<void>,
  batchSize = POINT_BATCH_SIZE,
): Promise<void> {
  const n = source.params.length;
  let after: ReportPoint | null = null;
  for (;;) {
    const rows = (await manager.query(
      `SELECT * FROM (${source.sql}) p
        WHERE $${n + 1}::timestamptz IS NULL OR (p.recorded_at, p.device_id) > ($${n + 1}::timestamptz, $${n + 2}::uuid)
        ORDER BY p.recorded_at, p.device_id
        LIMIT $${n + 3}`,
      [...source.params, after ? after.recorded_at.toISOString() : null, after ? after.device_id : null, batchSize],
    )) as ReportPoint[];
    if (rows.length === 0) return;
    await handle(rows);
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1];
  }
}
