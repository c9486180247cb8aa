import type { Db } from '@app/database/sql';
import { latestPositionRow } from './ais.repository';

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

/**
 * The newest position reported for the vessel, not later than `now`. AIS position reports are
 * keyed by MMSI, so a leg naming an MMSI is matched by MMSI only (a report carrying the same IMO
 * under another MMSI is another transmitter); a leg naming only an IMO is matched by IMO.
 */
export async function latestVesselPosition(
  manager: Db,
  vessel: { mmsi: string | null; imo: string | null },
  now: Date = new Date(),
): Promise<VesselPositionRecord | null> {
  const row = await latestPositionRow(manager, vessel, now);
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
