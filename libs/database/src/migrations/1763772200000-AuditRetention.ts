import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention of the audit trail (issue 30, item 4): whole monthly partitions older than
 * AUDIT_RETENTION_DAYS are dropped, never single records, so what stays of each account's chain
 * is an unbroken suffix of it.
 *
 * Before a partition goes, the last record each account had in it — its seq and hash — is kept in
 * audit_chain_anchors (append-only, like the trail). Verification starts from the newest anchor
 * of the account instead of from record 1 with an empty prev_hash: the first kept record must be
 * the anchor's seq + 1 and name the anchor's hash as its prev_hash, so removing or editing the
 * oldest kept records is still reported. Partitions are dropped oldest first, and within an
 * account time follows the chain, so a dropped month is a prefix of every chain.
 *
 * audit_drop_expired_partitions is SECURITY DEFINER (runs as the migrations' role, the trail's
 * owner): the runtime role may call it without any right to delete records, and it refuses to
 * drop anything younger than 31 days. It waits at most 2 s for the table lock (a drop takes an
 * exclusive lock on audit_events), so a long transaction postpones it to the next hour instead of
 * queueing every audited write behind it.
 */
export class AuditRetention1763772200000 implements MigrationInterface {
  name = 'AuditRetention1763772200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_chain_anchors (
        account_id uuid NOT NULL,
        seq bigint NOT NULL,
        hash text NOT NULL,
        partition text NOT NULL,
        dropped_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, seq)
      )`);
    await q.query(`CREATE TRIGGER audit_chain_anchors_append_only BEFORE UPDATE OR DELETE ON audit_chain_anchors FOR EACH ROW EXECUTE FUNCTION audit_refuse_change()`);
    await q.query(`CREATE TRIGGER audit_chain_anchors_no_truncate BEFORE TRUNCATE ON audit_chain_anchors FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change()`);
    await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON audit_chain_anchors FROM PUBLIC`);
    await q.query(`
      CREATE FUNCTION audit_drop_expired_partitions(keep_from timestamptz) RETURNS SETOF text
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
      DECLARE
        part record;
      BEGIN
        IF keep_from > now() - interval '31 days' THEN
          RAISE EXCEPTION 'audit records younger than 31 days are never dropped (asked to keep from %)', keep_from
            USING ERRCODE = 'invalid_parameter_value';
        END IF;
        PERFORM set_config('lock_timeout', '2000', true);
        FOR part IN
          SELECT c.relname AS name,
                 (to_timestamp(right(c.relname, 6), 'YYYYMM')::timestamp AT TIME ZONE 'UTC') + interval '1 month' AS upper_bound
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'audit_events'::regclass AND c.relname ~ '^audit_events_[0-9]{6}$'
           ORDER BY c.relname
        LOOP
          EXIT WHEN part.upper_bound > keep_from;
          LOCK TABLE audit_events IN ACCESS EXCLUSIVE MODE;
          EXECUTE format(
            'INSERT INTO audit_chain_anchors (account_id, seq, hash, partition)
             SELECT DISTINCT ON (account_id) account_id, seq, hash, %L FROM %I ORDER BY account_id, seq DESC', part.name, part.name);
          EXECUTE format('DROP TABLE %I', part.name);
          RETURN NEXT part.name;
        END LOOP;
      END $$`);
    await q.query(`REVOKE ALL ON FUNCTION audit_drop_expired_partitions(timestamptz) FROM PUBLIC`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION audit_drop_expired_partitions(timestamptz)`);
    await q.query(`DROP TABLE audit_chain_anchors`);
  }
}
