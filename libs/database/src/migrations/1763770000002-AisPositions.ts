import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vessel positions from AIS: public data about ships, not tenant data, so there is no account id.
 * A position names the vessel by MMSI, IMO or both; it is idempotent per (vessel, recorded_at),
 * the vessel being its MMSI when known. Each identifier has its own "latest position" index.
 */
export class AisPositions1763770000002 implements MigrationInterface {
  name = 'AisPositions1763770000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ais_positions (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        mmsi text CHECK (mmsi ~ '^[0-9]{9}$'),
        imo text CHECK (imo ~ '^[0-9]{7}$'),
        vessel_key text GENERATED ALWAYS AS (COALESCE('mmsi:' || mmsi, 'imo:' || imo)) STORED,
        recorded_at timestamptz(3) NOT NULL,
        latitude double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
        longitude double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
        speed_knots real CHECK (speed_knots BETWEEN 0 AND 102.3),
        course_deg real CHECK (course_deg >= 0 AND course_deg < 360),
        received_at timestamptz NOT NULL DEFAULT now(),
        CHECK (mmsi IS NOT NULL OR imo IS NOT NULL)
      )`);
    await q.query(`CREATE UNIQUE INDEX ais_positions_vessel_time_idx ON ais_positions (vessel_key, recorded_at)`);
    await q.query(`CREATE INDEX ais_positions_mmsi_idx ON ais_positions (mmsi, recorded_at DESC) WHERE mmsi IS NOT NULL`);
    await q.query(`CREATE INDEX ais_positions_imo_idx ON ais_positions (imo, recorded_at DESC) WHERE imo IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ais_positions`);
  }
}
