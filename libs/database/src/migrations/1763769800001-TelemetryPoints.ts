import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Telemetry for hundreds of millions of points: one narrow row per measurement, range
 * partitioned by month on recorded_at (old months can be detached or dropped whole), keyed by
 * (device_id, recorded_at) — the idempotency key of ingestion and the index every read uses.
 * No foreign keys: ingestion resolves the lifecycle itself, and per-row FK checks would cost
 * on the hottest insert path. Millisecond precision keeps keyset cursors exact.
 *
 * Monthly partitions are created on demand by telemetry_ensure_partition(); anything outside
 * them lands in the default partition, from which the function moves a month's rows when it
 * creates that month.
 */
export class TelemetryPoints1763769800001 implements MigrationInterface {
  name = 'TelemetryPoints1763769800001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE telemetry_points (
        device_id uuid NOT NULL,
        lifecycle_id uuid NOT NULL,
        recorded_at timestamptz(3) NOT NULL,
        latitude double precision,
        longitude double precision,
        temperature real,
        humidity real,
        light real,
        shock real,
        battery real,
        PRIMARY KEY (device_id, recorded_at)
      ) PARTITION BY RANGE (recorded_at)`);
    await q.query(`CREATE TABLE telemetry_points_default PARTITION OF telemetry_points DEFAULT`);
    await q.query(`
      CREATE FUNCTION telemetry_ensure_partition(at timestamptz) RETURNS text
      LANGUAGE plpgsql AS $$
      DECLARE
        lower_bound timestamptz := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
        upper_bound timestamptz := lower_bound + interval '1 month';
        partition_name text := 'telemetry_points_' || to_char(lower_bound AT TIME ZONE 'UTC', 'YYYYMM');
      BEGIN
        IF to_regclass(partition_name) IS NOT NULL THEN
          RETURN partition_name;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('telemetry_ensure_partition'), hashtext(partition_name));
        IF to_regclass(partition_name) IS NOT NULL THEN
          RETURN partition_name;
        END IF;
        EXECUTE format('CREATE TABLE %I (LIKE telemetry_points INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', partition_name);
        EXECUTE format(
          'WITH moved AS (DELETE FROM telemetry_points_default WHERE recorded_at >= %L AND recorded_at < %L RETURNING *) '
          'INSERT INTO %I SELECT * FROM moved',
          lower_bound, upper_bound, partition_name);
        EXECUTE format('ALTER TABLE telemetry_points ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
          partition_name, lower_bound, upper_bound);
        RETURN partition_name;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION telemetry_ensure_partition(timestamptz)`);
    await q.query(`DROP TABLE telemetry_points`);
  }
}
