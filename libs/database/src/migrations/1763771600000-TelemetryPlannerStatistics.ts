import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tells the planner that a telemetry point's device determines its lifecycle (extended
 * statistics, `dependencies`, on (device_id, lifecycle_id) of every partition).
 *
 * Without them the planner multiplies the selectivities of `device_id = $2` and
 * `lifecycle_id = (…)` as if independent, expects about one row, and reads a telemetry page as
 * a bitmap scan of the device's whole window followed by a sort, instead of walking the
 * (device_id, recorded_at) key in order and stopping at the page size. The cost of a page then
 * grows with the points in the window: `npm run bench -- --scale` measured 413 heap blocks for
 * the first 100 points of an old month at 10 M points against 50 at 1 M, and 2,021 blocks
 * (246 ms cold) against 108 (0.7 ms) for a month of 2,000 points before and after these
 * statistics (BENCHMARKS.md, "Cost as the data grows").
 *
 * New monthly partitions copy the parent's statistics object (`LIKE … INCLUDING STATISTICS` in
 * telemetry_ensure_partition); existing ones get their own and are analysed once here, because a
 * closed month is never changed again, so autovacuum would never analyse it.
 */
export class TelemetryPlannerStatistics1763771600000 implements MigrationInterface {
  name = 'TelemetryPlannerStatistics1763771600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE STATISTICS telemetry_points_device_lifecycle (dependencies) ON device_id, lifecycle_id FROM telemetry_points`);
    await q.query(ensurePartitionFunction('INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STATISTICS'));
    await q.query(`
      DO $$
      DECLARE part regclass;
      BEGIN
        FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'telemetry_points'::regclass LOOP
          EXECUTE format('CREATE STATISTICS %I (dependencies) ON device_id, lifecycle_id FROM %s', left(part::text, 45) || '_device_lifecycle', part);
          EXECUTE format('ANALYZE %s', part);
        END LOOP;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      DECLARE stat record;
      BEGIN
        FOR stat IN
          SELECT n.nspname, s.stxname
            FROM pg_statistic_ext s JOIN pg_namespace n ON n.oid = s.stxnamespace
           WHERE s.stxrelid = 'telemetry_points'::regclass
              OR s.stxrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'telemetry_points'::regclass)
        LOOP
          EXECUTE format('DROP STATISTICS %I.%I', stat.nspname, stat.stxname);
        END LOOP;
      END $$`);
    await q.query(ensurePartitionFunction('INCLUDING DEFAULTS INCLUDING CONSTRAINTS'));
  }
}

/** telemetry_ensure_partition as the TelemetryPoints migration defined it, with the given LIKE options. */
function ensurePartitionFunction(likeOptions: string): string {
  return `
      CREATE OR REPLACE FUNCTION telemetry_ensure_partition(at timestamptz) RETURNS text
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
        EXECUTE format('CREATE TABLE %I (LIKE telemetry_points ${likeOptions})', partition_name);
        EXECUTE format(
          'WITH moved AS (DELETE FROM telemetry_points_default WHERE recorded_at >= %L AND recorded_at < %L RETURNING *) '
          'INSERT INTO %I SELECT * FROM moved',
          lower_bound, upper_bound, partition_name);
        EXECUTE format('ALTER TABLE telemetry_points ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
          partition_name, lower_bound, upper_bound);
        RETURN partition_name;
      END $$`;
}
