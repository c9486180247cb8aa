import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The group role a deployment's runtime login joins (README "A runtime role that cannot rewrite the trail"). */
export const RUNTIME_ROLE = 'coldchain_runtime';

/** The trail's tables: the runtime role reads them and nothing else. */
const AUDIT_TABLES = ['audit_events', 'audit_chain_heads', 'audit_chain_anchors'];

/**
 * audit_ensure_partition as AuditTrail made it; with `revoke`, a new month's partition is also
 * closed to the runtime role (the default privileges would otherwise let it write the partition
 * directly, bypassing the parent's grants).
 */
function ensurePartitionFunction(revoke: boolean): string {
  return `
      CREATE OR REPLACE FUNCTION audit_ensure_partition(at timestamptz) RETURNS text
      LANGUAGE plpgsql AS $$
      DECLARE
        lower_bound timestamptz := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
        upper_bound timestamptz := lower_bound + interval '1 month';
        partition_name text := 'audit_events_' || to_char(lower_bound AT TIME ZONE 'UTC', 'YYYYMM');
      BEGIN
        IF to_regclass(partition_name) IS NOT NULL THEN
          RETURN partition_name;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('audit_ensure_partition'), hashtext(partition_name));
        IF to_regclass(partition_name) IS NOT NULL THEN
          RETURN partition_name;
        END IF;
        -- Records never move (they are append-only): a month that already has records in the
        -- default partition stays there.
        IF EXISTS (SELECT 1 FROM audit_events_default WHERE occurred_at >= lower_bound AND occurred_at < upper_bound) THEN
          RETURN 'audit_events_default';
        END IF;
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_events FOR VALUES FROM (%L) TO (%L)', partition_name, lower_bound, upper_bound);${
          revoke
            ? `
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${RUNTIME_ROLE}') THEN
          EXECUTE format('REVOKE ALL ON %I FROM ${RUNTIME_ROLE}', partition_name);
        END IF;`
            : ''
        }
        RETURN partition_name;
      END $$`;
}

/**
 * A runtime role that cannot rewrite the audit trail (issue 30, item 2: "the database role used at
 * run time cannot"). The group role `coldchain_runtime` (NOLOGIN) may read and write every table of
 * the service but only read the trail's; the audit trigger and the partition functions run as
 * their owner (SECURITY DEFINER), so recording, making partitions ahead and the retention drop go
 * on without the runtime role holding any right to insert, update or delete audit rows.
 *
 * Roles are cluster-wide: the role is made when missing (several databases of one cluster may race
 * to make it) and kept by `down` while other databases still grant it something. A migrating role
 * without CREATEROLE skips the role (a notice), and everything else still applies.
 */
export class AuditRuntimeRole1763772300000 implements MigrationInterface {
  name = 'AuditRuntimeRole1763772300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(ensurePartitionFunction(true));
    for (const fn of ['audit_record_change()', 'audit_ensure_partition(timestamptz)']) {
      await q.query(`ALTER FUNCTION ${fn} SECURITY DEFINER SET search_path = public, pg_temp`);
    }
    await q.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${RUNTIME_ROLE}') THEN
          CREATE ROLE ${RUNTIME_ROLE} NOLOGIN;
        END IF;
      EXCEPTION
        WHEN duplicate_object OR unique_violation THEN NULL; -- another database made it meanwhile
        WHEN insufficient_privilege THEN RAISE NOTICE 'no CREATEROLE: the runtime role ${RUNTIME_ROLE} was not made (README)';
      END $$`);
    await q.query(`
      DO $$
      DECLARE
        part record;
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${RUNTIME_ROLE}') THEN
          EXECUTE 'GRANT USAGE ON SCHEMA public TO ${RUNTIME_ROLE}';
          EXECUTE 'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${RUNTIME_ROLE}';
          EXECUTE 'GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${RUNTIME_ROLE}';
          EXECUTE 'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${RUNTIME_ROLE}';
          EXECUTE 'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${RUNTIME_ROLE}';
          EXECUTE 'REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ${AUDIT_TABLES.join(', ')} FROM ${RUNTIME_ROLE}';
          -- The partitions too: a partition's own grants would let the role write it directly.
          FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'audit_events'::regclass LOOP
            EXECUTE format('REVOKE ALL ON %I FROM ${RUNTIME_ROLE}', part.relname);
          END LOOP;
          EXECUTE 'GRANT EXECUTE ON FUNCTION audit_drop_expired_partitions(timestamptz) TO ${RUNTIME_ROLE}';
        END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${RUNTIME_ROLE}') THEN
          EXECUTE 'ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM ${RUNTIME_ROLE}';
          EXECUTE 'ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM ${RUNTIME_ROLE}';
          EXECUTE 'REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${RUNTIME_ROLE}';
          EXECUTE 'REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${RUNTIME_ROLE}';
          EXECUTE 'REVOKE ALL ON FUNCTION audit_drop_expired_partitions(timestamptz) FROM ${RUNTIME_ROLE}';
          EXECUTE 'REVOKE ALL ON SCHEMA public FROM ${RUNTIME_ROLE}';
          BEGIN
            DROP ROLE ${RUNTIME_ROLE};
          EXCEPTION WHEN dependent_objects_still_exist OR insufficient_privilege THEN
            NULL; -- still granted in another database of the cluster, or not ours to drop
          END;
        END IF;
      END $$`);
    await q.query(`ALTER FUNCTION audit_record_change() SECURITY INVOKER RESET search_path`);
    await q.query(ensurePartitionFunction(false));
  }
}
