import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trail (21 CFR Part 11 §11.10(e)): every change to a record customers or inspectors
 * care about is written by PostgreSQL itself, in the same transaction as the change, by one row
 * trigger (audit_record_change) on each audited table. Recording in the database rather than in
 * each repository means no code path (API, panel, CLI, dispatcher, a TypeORM `save`, a future
 * repository) can change an audited table without leaving a record.
 *
 * Who and why come from the session setting `audit.context` (JSON: actor_type, actor_id,
 * client_address, request_id, reason, action), which the service's pg pool sets on each
 * connection it hands out inside a request or CLI command (libs/database/src/audit). Without it
 * the record still goes in, as actor_type `system`.
 *
 * Append-only and tamper-evident: UPDATE, DELETE and TRUNCATE on audit_events raise; each record
 * carries seq (its position in its account's chain, from 1), prev_hash and hash =
 * sha256(prev_hash || '\n' || audit_event_canonical(record)), computed under the row lock of the
 * account's chain head (audit_chain_heads), so concurrent transactions chain one after the other.
 * Records of platform tables (devices, maintenance) chain under the nil account.
 *
 * Partitioned by month on occurred_at like telemetry (audit_ensure_partition); listing reads the
 * (account_id, occurred_at DESC, id DESC) index.
 */
export const AUDITED_TABLES: ReadonlyArray<{
  table: string;
  resource: string;
  id: string;
  account: string | null;
  secrets?: string[];
  ignored?: string[];
  /** Only rows matching this (SQL on NEW) are recorded, on INSERT only. */
  insertsWhen?: string;
}> = [
  { table: 'accounts', resource: 'account', id: 'id', account: 'id', ignored: ['updated_at'] },
  { table: 'api_credentials', resource: 'api_credential', id: 'id', account: 'owner_account_id', secrets: ['secret_hash'], ignored: ['updated_at', 'last_used_at'] },
  { table: 'api_credential_accounts', resource: 'api_credential_account', id: 'credential_id', account: 'account_id' },
  { table: 'locations', resource: 'location', id: 'id', account: 'account_id', ignored: ['updated_at'] },
  { table: 'carriers', resource: 'carrier', id: 'id', account: 'account_id', ignored: ['updated_at'] },
  { table: 'receivers', resource: 'receiver', id: 'id', account: 'account_id', ignored: ['updated_at'] },
  { table: 'alert_presets', resource: 'alert_preset', id: 'id', account: 'account_id', ignored: ['updated_at'] },
  { table: 'shipment_templates', resource: 'shipment_template', id: 'id', account: 'account_id', ignored: ['updated_at'] },
  { table: 'users', resource: 'user', id: 'id', account: 'account_id', secrets: ['password_hash'], ignored: ['updated_at'] },
  { table: 'user_invitations', resource: 'user_invitation', id: 'id', account: 'account_id', secrets: ['token_hash'], ignored: ['updated_at'] },
  { table: 'devices', resource: 'device_record', id: 'id', account: null, secrets: ['sim_pin', 'firmware_key'], ignored: ['updated_at'] },
  {
    table: 'device_lifecycles',
    resource: 'device',
    id: 'device_id',
    account: 'account_id',
    // Written by every telemetry batch: what a device reports is telemetry, not a record change.
    ignored: ['updated_at', 'last_seen_at', 'battery', 'battery_at', 'latitude', 'longitude', 'location_at'],
  },
  { table: 'device_maintenance_records', resource: 'device_maintenance', id: 'id', account: null, ignored: ['updated_at'] },
  { table: 'alarms', resource: 'alarm', id: 'id', account: 'account_id', ignored: ['updated_at'] },
  {
    table: 'webhook_endpoints',
    resource: 'webhook_endpoint',
    id: 'id',
    account: 'account_id',
    secrets: ['secret_ciphertext', 'previous_secret_ciphertext'],
    // The failure streak moves with every failed attempt; reaching the limit disables the endpoint (recorded).
    ignored: ['updated_at', 'consecutive_failures'],
  },
  {
    table: 'webhook_deliveries',
    resource: 'webhook_delivery',
    id: 'id',
    account: 'account_id',
    // Fan-out deliveries are the outcome log (webhook event log); deliveries someone asked for are changes.
    insertsWhen: `NEW.origin <> 'event'`,
    ignored: ['body', 'updated_at', 'lease_until', 'next_attempt_at', 'status', 'attempts', 'last_attempt_at', 'last_status_code', 'last_error', 'completed_at'],
  },
  { table: 'shipments', resource: 'shipment', id: 'id', account: 'account_id', ignored: ['updated_at'] },
  { table: 'shipment_devices', resource: 'shipment_device', id: 'shipment_id', account: 'account_id' },
  { table: 'shipment_shares', resource: 'shipment_share', id: 'shipment_id', account: 'account_id', secrets: ['token_hash', 'link_nonce'], ignored: ['updated_at', 'view_count'] },
];

function triggerName(table: string): string {
  return `audit_${table}`;
}

export class AuditTrail1763772100000 implements MigrationInterface {
  name = 'AuditTrail1763772100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL,
        seq bigint NOT NULL,
        occurred_at timestamptz NOT NULL,
        actor_type text NOT NULL CHECK (actor_type IN ('credential', 'panel_user', 'cli', 'system')),
        actor_id text,
        client_address text,
        request_id text,
        reason text,
        action text NOT NULL,
        operation text NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
        resource_type text NOT NULL,
        resource_id text NOT NULL,
        changes jsonb NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (id, occurred_at)
      ) PARTITION BY RANGE (occurred_at)`);
    await q.query(`CREATE TABLE audit_events_default PARTITION OF audit_events DEFAULT`);
    await q.query(`CREATE INDEX audit_events_account_time ON audit_events (account_id, occurred_at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_events_account_resource ON audit_events (account_id, resource_type, resource_id, occurred_at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_events_account_actor ON audit_events (account_id, actor_id, occurred_at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_events_account_action ON audit_events (account_id, action, occurred_at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_events_chain ON audit_events (account_id, seq)`);
    await q.query(`
      CREATE TABLE audit_chain_heads (
        account_id uuid PRIMARY KEY,
        seq bigint NOT NULL,
        hash text NOT NULL
      )`);

    // The canonical serialisation a hash covers: every column but hash and prev_hash, as a jsonb
    // object (PostgreSQL prints jsonb with its keys in a fixed order), the time in UTC microseconds.
    await q.query(`
      CREATE FUNCTION audit_event_canonical(e audit_events) RETURNS text
      LANGUAGE sql IMMUTABLE AS $$
        SELECT jsonb_build_object(
          'id', e.id, 'account_id', e.account_id, 'seq', e.seq,
          'occurred_at', to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          'actor_type', e.actor_type, 'actor_id', e.actor_id, 'client_address', e.client_address,
          'request_id', e.request_id, 'reason', e.reason, 'action', e.action, 'operation', e.operation,
          'resource_type', e.resource_type, 'resource_id', e.resource_id, 'changes', e.changes)::text
      $$`);
    await q.query(`
      CREATE FUNCTION audit_event_digest(prev_hash text, e audit_events) RETURNS text
      LANGUAGE sql IMMUTABLE AS $$
        SELECT encode(sha256(convert_to(prev_hash || E'\\n' || audit_event_canonical(e), 'UTF8')), 'hex')
      $$`);

    await q.query(`
      CREATE FUNCTION audit_ensure_partition(at timestamptz) RETURNS text
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
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_events FOR VALUES FROM (%L) TO (%L)', partition_name, lower_bound, upper_bound);
        RETURN partition_name;
      END $$`);
    await q.query(`SELECT audit_ensure_partition(now() + make_interval(months => m)) FROM generate_series(0, 2) AS m`);

    await q.query(`
      CREATE FUNCTION audit_refuse_change() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit records are append-only (% on %)', TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_refuse_change()`);
    await q.query(`CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change()`);
    await q.query(`CREATE TRIGGER audit_chain_heads_keep BEFORE DELETE ON audit_chain_heads FOR EACH ROW EXECUTE FUNCTION audit_refuse_change()`);
    await q.query(`CREATE TRIGGER audit_chain_heads_no_truncate BEFORE TRUNCATE ON audit_chain_heads FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change()`);
    // No role but the owner (the migrations' role) may change records, even if one is granted ALL.
    await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM PUBLIC`);

    await q.query(`
      CREATE FUNCTION audit_record_change() RETURNS trigger
      LANGUAGE plpgsql AS $$
      DECLARE
        resource_type text := TG_ARGV[0];
        id_column text := TG_ARGV[1];
        account_column text := nullif(TG_ARGV[2], '');
        secret_columns text[] := coalesce(string_to_array(nullif(TG_ARGV[3], ''), ','), '{}');
        ignored_columns text[] := coalesce(string_to_array(nullif(TG_ARGV[4], ''), ','), '{}');
        old_row jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
        new_row jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
        subject jsonb := coalesce(new_row, old_row);
        changes jsonb := '{}';
        field text;
        before jsonb;
        after jsonb;
        context jsonb;
        event audit_events;
        head audit_chain_heads;
      BEGIN
        FOR field IN SELECT jsonb_object_keys(subject) LOOP
          CONTINUE WHEN field = ANY (ignored_columns);
          before := coalesce(old_row -> field, 'null'::jsonb);
          after := coalesce(new_row -> field, 'null'::jsonb);
          CONTINUE WHEN before = after;
          IF field = ANY (secret_columns) THEN
            changes := changes || jsonb_build_object(field, jsonb_build_object('changed', true));
          ELSE
            changes := changes || jsonb_build_object(field, jsonb_build_object('old', before, 'new', after));
          END IF;
        END LOOP;
        IF TG_OP = 'UPDATE' AND changes = '{}' THEN
          RETURN NULL;
        END IF;

        BEGIN
          context := nullif(current_setting('audit.context', true), '')::jsonb;
        EXCEPTION WHEN others THEN
          context := NULL;
        END;

        event.id := gen_random_uuid();
        event.account_id := coalesce((subject ->> account_column)::uuid, '00000000-0000-0000-0000-000000000000');
        event.actor_type := coalesce(context ->> 'actor_type', 'system');
        event.actor_id := CASE WHEN context IS NULL THEN nullif(current_setting('application_name', true), '') ELSE context ->> 'actor_id' END;
        event.client_address := context ->> 'client_address';
        event.request_id := context ->> 'request_id';
        event.reason := context ->> 'reason';
        event.operation := CASE TG_OP WHEN 'INSERT' THEN 'create' WHEN 'UPDATE' THEN 'update' ELSE 'delete' END;
        event.action := coalesce(context ->> 'action', resource_type || '.' || event.operation);
        event.resource_type := resource_type;
        event.resource_id := subject ->> id_column;
        event.changes := changes;

        INSERT INTO audit_chain_heads (account_id, seq, hash) VALUES (event.account_id, 0, '') ON CONFLICT (account_id) DO NOTHING;
        SELECT * INTO head FROM audit_chain_heads WHERE account_id = event.account_id FOR UPDATE;
        -- Taken under the chain's lock: within an account, time follows the chain.
        event.occurred_at := clock_timestamp();
        event.seq := head.seq + 1;
        event.prev_hash := head.hash;
        event.hash := audit_event_digest(event.prev_hash, event);
        INSERT INTO audit_events SELECT event.*;
        UPDATE audit_chain_heads SET seq = event.seq, hash = event.hash WHERE account_id = event.account_id;
        RETURN NULL;
      END $$`);

    for (const audited of AUDITED_TABLES) {
      const args = [audited.resource, audited.id, audited.account ?? '', (audited.secrets ?? []).join(','), (audited.ignored ?? []).join(',')]
        .map((value) => `'${value}'`)
        .join(', ');
      if (audited.insertsWhen) {
        await q.query(`CREATE TRIGGER ${triggerName(audited.table)} AFTER INSERT ON ${audited.table} FOR EACH ROW WHEN (${audited.insertsWhen}) EXECUTE FUNCTION audit_record_change(${args})`);
      } else {
        await q.query(`CREATE TRIGGER ${triggerName(audited.table)} AFTER INSERT OR UPDATE OR DELETE ON ${audited.table} FOR EACH ROW EXECUTE FUNCTION audit_record_change(${args})`);
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const audited of AUDITED_TABLES) await q.query(`DROP TRIGGER ${triggerName(audited.table)} ON ${audited.table}`);
    await q.query(`DROP FUNCTION audit_record_change()`);
    await q.query(`DROP FUNCTION audit_event_digest(text, audit_events)`);
    await q.query(`DROP FUNCTION audit_event_canonical(audit_events)`);
    await q.query(`DROP FUNCTION audit_ensure_partition(timestamptz)`);
    await q.query(`DROP TABLE audit_chain_heads`);
    await q.query(`DROP TABLE audit_events`);
    await q.query(`DROP FUNCTION audit_refuse_change()`);
  }
}
