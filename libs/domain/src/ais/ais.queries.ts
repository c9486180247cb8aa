import { defineQueries } from '@app/database/sql';

const POSITION_COLUMNS = 'mmsi, imo, latitude, longitude, speed_knots, course_deg, recorded_at';

/** AIS positions are public vessel data, shared by every tenant: all statements are platform-wide. */
export const AIS_QUERIES = defineQueries({
  owner: 'ais',
  tables: ['ais_positions'],
  platform: {
    insertBatch: `
      INSERT INTO ais_positions (mmsi, imo, recorded_at, latitude, longitude, speed_knots, course_deg)
      SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::float8[], $5::float8[], $6::real[], $7::real[])
      ON CONFLICT (vessel_key, recorded_at) DO NOTHING
      RETURNING id`,
    latestByMmsi: `SELECT ${POSITION_COLUMNS} FROM ais_positions WHERE mmsi = $1 AND recorded_at <= $2 ORDER BY recorded_at DESC LIMIT 1`,
    latestByImo: `SELECT ${POSITION_COLUMNS} FROM ais_positions WHERE imo = $1 AND recorded_at <= $2 ORDER BY recorded_at DESC LIMIT 1`,
  },
});
