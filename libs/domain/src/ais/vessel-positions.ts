import type { EntityManager } from 'typeorm';

/** A vessel's reported position (AIS), as the shipment detail and the tracking page show it. */
export interface VesselPositionRecord {
  mmsi: string | null;
  imo: string | null;
  latitude: number;
  longitude: number;
  speed_knots: number | null;
  course_deg: number | null;
  recorded_at: string;
}

interface PositionRow {
  mmsi: string | null;
  imo: string | null;
  latitude: number;
  longitude: number;
  speed_knots: number | null;
  course_deg: number | null;
  recorded_at: Date;
}

/**
 * The newest position reported for the vessel named by MMSI and/or IMO, not later than `now`.
 * One indexed lookup per identifier; the newer of the two wins.
 */
export async function latestVesselPosition(
  manager: EntityManager,
  vessel: { mmsi: string | null; imo: string | null },
  now: Date = new Date(),
): Promise<VesselPositionRecord | null> {
  if (!vessel.mmsi && !vessel.imo) return null;
  const columns = 'mmsi, imo, latitude, longitude, speed_knots, course_deg, recorded_at';
  const rows = (await manager.query(
    `SELECT * FROM (
       (SELECT ${columns} FROM ais_positions WHERE $1::text IS NOT NULL AND mmsi = $1 AND recorded_at <= $3 ORDER BY recorded_at DESC LIMIT 1)
       UNION ALL
       (SELECT ${columns} FROM ais_positions WHERE $2::text IS NOT NULL AND imo = $2 AND recorded_at <= $3 ORDER BY recorded_at DESC LIMIT 1)
     ) latest ORDER BY recorded_at DESC LIMIT 1`,
    [vessel.mmsi, vessel.imo, now.toISOString()],
  )) as PositionRow[];
  const row = rows[0];
  if (!row) return null;
  return {
    mmsi: row.mmsi,
    imo: row.imo,
    latitude: row.latitude,
    longitude: row.longitude,
    speed_knots: row.speed_knots,
    course_deg: row.course_deg,
    recorded_at: row.recorded_at.toISOString(),
  };
}
