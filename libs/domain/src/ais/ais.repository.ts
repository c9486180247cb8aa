import { sql, type Db } from '@app/database/sql';
import type { AisPosition } from './ais-position';
import { AIS_QUERIES as Q } from './ais.queries';

export interface PositionRow {
  mmsi: string | null;
  imo: string | null;
  latitude: number;
  longitude: number;
  speed_knots: number | null;
  course_deg: number | null;
  recorded_at: Date;
}

/** Stores the batch; positions already stored (same vessel and time) are skipped. Returns how many were new. */
export async function insertAisPositions(db: Db, batch: AisPosition[]): Promise<number> {
  const column = <T>(pick: (p: AisPosition) => T): T[] => batch.map(pick);
  return sql.count(db, Q.insertBatch, [
    column((p) => p.mmsi),
    column((p) => p.imo),
    column((p) => p.recordedAt.toISOString()),
    column((p) => p.latitude),
    column((p) => p.longitude),
    column((p) => p.speedKnots),
    column((p) => p.courseDeg),
  ]);
}

/** The newest position of the vessel (by MMSI when given, else by IMO) not later than `now`. */
export function latestPositionRow(db: Db, vessel: { mmsi: string | null; imo: string | null }, now: Date): Promise<PositionRow | null> {
  if (vessel.mmsi) return sql.first<PositionRow>(db, Q.latestByMmsi, [vessel.mmsi, now.toISOString()]);
  if (vessel.imo) return sql.first<PositionRow>(db, Q.latestByImo, [vessel.imo, now.toISOString()]);
  return Promise.resolve(null);
}

