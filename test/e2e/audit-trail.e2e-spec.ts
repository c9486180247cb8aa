import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DataSource } from 'typeorm';
import { AUDITED_TABLES } from '../../libs/database/src/migrations/1763772100000-AuditTrail';
import { RUNTIME_ROLE } from '../../libs/database/src/migrations/1763772300000-AuditRuntimeRole';
import { dropExpiredAuditPartitions, PLATFORM_AUDIT_ACCOUNT } from '@app/database';
import { HousekeepingService } from '../../apps/api/src/housekeeping/housekeeping.service';
import { API, startApi, type TestApi } from '../support/api';
import { newKey } from '../support/catalogue';
import { runCaptured } from '../support/cli';
import { registerDevice } from '../support/devices';
import { createAccount, createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { listRoutes } from '../support/routes';

/**
 * The audit trail (issue 30). Recording happens in PostgreSQL (one trigger per audited table), so
 * coverage is proven in two halves: every table of the schema is either audited or exempt for a
 * stated reason, and every mutating route of the API and the panel names the audited resource its
 * change lands in (or why it changes no record). A new table or route without a decision fails
 * here. A sample of routes is then exercised end to end.
 */

/** Tables the service writes that are not records a customer changes: bookkeeping, logs, derived data. */
const EXEMPT_TABLES: Record<string, string> = {
  migrations: "TypeORM's record of applied migrations",
  audit_events: 'the trail itself (append-only)',
  audit_chain_heads: 'the chain heads of the trail',
  audit_chain_anchors: 'where each chain starts after retention dropped old partitions (append-only)',
  idempotency_records: 'replay cache of POST responses (24 h)',
  outbox_events: 'transport of webhook events already recorded by their cause',
  panel_sessions: 'sign-in sessions, not records',
  rate_limit_counters: 'request counters',
  telemetry_points: 'measurements reported by devices (the data the trail protects, append-only by ingestion)',
  ais_positions: 'vessel positions from the AIS feed',
  shipment_events: 'tracking events derived from telemetry and geofences',
  reports: 'generated documents (their inputs are audited)',
  report_files: 'generated document bytes',
  shipment_report_jobs: 'report generation queue',
  webhook_attempts: 'delivery attempt log (webhook event log)',
  webhook_dispatchers: 'live dispatcher processes (heartbeats)',
  webhook_slot_grants: 'dispatcher concurrency grants (leases)',
  webhook_endpoint_hourly_stats: 'delivery statistics',
  invitation_emails: 'e-mail outbox of invitations (the invitation is audited)',
};

/** Mutating routes that change no customer record, and why. */
const ROUTES_WITHOUT_RECORD: Record<string, string> = {
  'POST /api/public/v1/oauth/token/': 'issues a token; nothing is stored but the credential last_used_at (not a change)',
  'POST /panel/sign-in/': 'opens a panel session',
  'POST /panel/sign-out/': 'closes a panel session',
};

/** Every other mutating route: the audited resource type its change is recorded under. */
const ROUTE_RESOURCES: Record<string, string[]> = {
  'DELETE /api/public/v1/alert-presets/:preset_id/': ['alert_preset'],
  'DELETE /api/public/v1/carriers/:carrier_id/': ['carrier'],
  'DELETE /api/public/v1/locations/:location_id/': ['location'],
  'DELETE /api/public/v1/receivers/:receiver_id/': ['receiver'],
  'DELETE /api/public/v1/shipment-templates/:template_id/': ['shipment_template'],
  'DELETE /api/public/v1/shipments/:shipment_id/': ['shipment'],
  'DELETE /api/public/v1/shipments/:shipment_id/share/': ['shipment_share'],
  'DELETE /api/public/v1/user-invitations/:invitation_id/': ['user_invitation'],
  'DELETE /api/public/v1/users/:user_id/': ['user'],
  'PATCH /api/public/v1/accounts/:account_id/': ['account'],
  'PATCH /api/public/v1/alarms/:alarm_id/': ['alarm'],
  'PATCH /api/public/v1/alert-presets/:preset_id/': ['alert_preset'],
  'PATCH /api/public/v1/carriers/:carrier_id/': ['carrier'],
  'PATCH /api/public/v1/devices/:device_id/label/': ['device'],
  'PATCH /api/public/v1/devices/:device_id/settings/': ['device'],
  'PATCH /api/public/v1/locations/:location_id/': ['location'],
  'PATCH /api/public/v1/receivers/:receiver_id/': ['receiver'],
  'PATCH /api/public/v1/shipment-templates/:template_id/': ['shipment_template'],
  'PATCH /api/public/v1/users/:user_id/': ['user'],
  'POST /api/public/v1/alert-presets/': ['alert_preset'],
  'POST /api/public/v1/carriers/': ['carrier'],
  'POST /api/public/v1/locations/': ['location'],
  'POST /api/public/v1/receivers/': ['receiver'],
  'POST /api/public/v1/shipment-templates/': ['shipment_template'],
  'POST /api/public/v1/shipments/:shipment_id/complete/': ['shipment'],
  'POST /api/public/v1/shipments/create/': ['shipment', 'shipment_device'],
  'POST /api/public/v1/user-invitations/': ['user_invitation'],
  'POST /invitations/accept/': ['user_invitation', 'user'],
  'POST /panel/credentials/': ['api_credential', 'api_credential_account'],
  'POST /panel/credentials/:credential_id/revoke/': ['api_credential'],
  'POST /panel/webhook-events/:event_id/resend/': ['webhook_delivery'],
  'POST /panel/webhook-events/resend/': ['webhook_delivery'],
  'POST /panel/webhooks/': ['webhook_endpoint'],
  'POST /panel/webhooks/:endpoint_id/enable/': ['webhook_endpoint'],
  'POST /panel/webhooks/:endpoint_id/recover/': ['webhook_delivery'],
  'POST /panel/webhooks/:endpoint_id/resend/': ['webhook_delivery'],
  'POST /panel/webhooks/:endpoint_id/rotate-secret/': ['webhook_endpoint'],
  'POST /panel/webhooks/:endpoint_id/signature-format/': ['webhook_endpoint'],
  'POST /panel/webhooks/:endpoint_id/test/': ['webhook_delivery'],
  'PUT /api/public/v1/alert-presets/:preset_id/': ['alert_preset'],
  'PUT /api/public/v1/carriers/:carrier_id/': ['carrier'],
  'PUT /api/public/v1/locations/:location_id/': ['location'],
  'PUT /api/public/v1/receivers/:receiver_id/': ['receiver'],
  'PUT /api/public/v1/shipment-templates/:template_id/': ['shipment_template'],
  'PUT /api/public/v1/shipments/:shipment_id/': ['shipment', 'shipment_device'],
  'PUT /api/public/v1/shipments/:shipment_id/share/': ['shipment_share'],
};

/**
 * Behind a transaction pooler the caller's context cannot ride the session (AuditedPool does not
 * send it): changes are still recorded, as `system`. The tests of attribution run on a direct connection.
 */
const attributed = process.env.TEST_VIA_PGBOUNCER !== '1';
const itAttributed = attributed ? it : it.skip;

interface AuditRow {
  id: string;
  seq: string;
  actor_type: string;
  actor_id: string | null;
  client_address: string | null;
  request_id: string | null;
  reason: string | null;
  action: string;
  operation: string;
  resource_type: string;
  resource_id: string;
  changes: Record<string, unknown>;
}

describe('Audit trail', () => {
  let api: TestApi;
  let db: DataSource;
  let tenant: Tenant;

  beforeAll(async () => {
    // Ten years: the retention drops only the months this suite makes in 2001.
    api = await startApi({ TELEMETRY_RETENTION_DAYS: '3650', AUDIT_RETENTION_DAYS: '3650' });
    db = dataSourceOf(api.app);
    tenant = await createTenant(api.app, undefined, 'Audited');
  });
  afterAll(() => api.close());

  const recordsOf = (accountId: string, resourceType: string, resourceId: string): Promise<AuditRow[]> =>
    db.query(`SELECT * FROM audit_events WHERE account_id = $1 AND resource_type = $2 AND resource_id = $3 ORDER BY seq`, [accountId, resourceType, resourceId]);

  /** What a superuser could do behind the service's back: the guard trigger off, a statement, the trigger on. */
  async function behindTheBack(statement: string, params: unknown[]): Promise<void> {
    await db.transaction(async (manager) => {
      await manager.query(`ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only`);
      await manager.query(statement, params);
      await manager.query(`ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only`);
    });
  }

  describe('coverage', () => {
    it('puts the audit trigger on every table of the schema except the stated exemptions', async () => {
      const tables = (
        (await db.query(
          `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
        )) as Array<{ name: string }>
      ).map((row) => row.name);
      const triggered = new Set(
        ((await db.query(`SELECT tgrelid::regclass::text AS name FROM pg_trigger WHERE tgname LIKE 'audit\\_%' AND tgfoid = 'audit_record_change'::regproc`)) as Array<{ name: string }>).map(
          (row) => row.name,
        ),
      );
      const undecided = tables.filter((table) => !triggered.has(table) && !(table in EXEMPT_TABLES));
      expect(undecided).toEqual([]);
      expect([...triggered].sort()).toEqual(AUDITED_TABLES.map((audited) => audited.table).sort());
    });

    it('knows, for every mutating route of the API and the panel, the audited resource its change is recorded under', () => {
      const resources = new Set(AUDITED_TABLES.map((audited) => audited.resource));
      const mutating = listRoutes(api.app)
        .map(({ route }) => route)
        .filter((route) => /^(POST|PUT|PATCH|DELETE) /.test(route));
      const undecided = mutating.filter((route) => !(route in ROUTE_RESOURCES) && !(route in ROUTES_WITHOUT_RECORD));
      expect(undecided).toEqual([]);
      const unknownResources = Object.entries(ROUTE_RESOURCES).filter(([, types]) => types.some((type) => !resources.has(type)));
      expect(unknownResources).toEqual([]);
      const stale = [...Object.keys(ROUTE_RESOURCES), ...Object.keys(ROUTES_WITHOUT_RECORD)].filter((route) => !mutating.includes(route));
      expect(stale).toEqual([]);
    });
  });

  describe('recording', () => {
    itAttributed('records a settings change with the credential, address, request id, reason, route and each field before and after, and adds nothing to the response', async () => {
      const device = await registerDevice(db, tenant.accountId);
      const url = `${API}/devices/${device.id}/settings/`;
      const before = await api.http.get(`${API}/devices/${device.id}/`).set(tenant.auth).expect(200);
      const res = await api.http
        .patch(url)
        .set(tenant.auth)
        .set('X-Request-ID', 'audit-test-1')
        .set('X-Change-Reason', 'Deviation report DR-17:\ttighter limit')
        .send({ thresholds: { temperature_max: 6 } })
        .expect(200);
      expect(Object.keys(res.body as object).sort()).toEqual(Object.keys(before.body as object).sort());
      const records = (await recordsOf(tenant.accountId, 'device', device.id)).filter((row) => row.operation === 'update');
      expect(records).toHaveLength(1);
      const [record] = records;
      expect(record).toMatchObject({
        actor_type: 'credential',
        actor_id: tenant.credential.id,
        request_id: 'audit-test-1',
        reason: 'Deviation report DR-17: tighter limit',
        action: 'PATCH /devices/{device_id}/settings/',
        operation: 'update',
      });
      expect(record.client_address).toMatch(/127\.0\.0\.1|::1/);
      const thresholds = record.changes.thresholds as { old: Record<string, unknown>; new: Record<string, unknown> };
      expect(thresholds.old.temperature_max ?? null).not.toBe(6);
      expect(thresholds.new.temperature_max).toBe(6);
      expect(Object.keys(record.changes)).toEqual(['thresholds']);
    });

    it('sets the audit context before handing a connection out: no statement is queued behind another (pg 8 warns, pg 9 refuses)', async () => {
      // pg reports the queueing as a process warning of the real process, once: a process of its own sees it.
      const url = process.env.DATABASE_DIRECT_URL ?? process.env.DATABASE_URL ?? '';
      const { stdout } = await promisify(execFile)(process.execPath, [join(process.cwd(), 'test', 'support', 'audited-pool-probe.mjs'), url]);
      // Three checkouts of one connection, each with another caller, then one without: each statement saw its own.
      expect(JSON.parse(stdout)).toEqual({ warnings: [], actors: ['first', 'second', 'third', null] });
    });

    itAttributed('records create, update and delete of a catalogue record in the same transaction, one record each', async () => {
      const created = await api.http.post(`${API}/receivers/`).set(tenant.auth).set('Idempotency-Key', newKey()).send({ name: 'Depot' }).expect(201);
      const id = (created.body as { id: string }).id;
      await api.http.patch(`${API}/receivers/${id}/`).set(tenant.auth).send({ name: 'Depot North' }).expect(200);
      await api.http.delete(`${API}/receivers/${id}/`).set(tenant.auth).expect(204);
      const records = await recordsOf(tenant.accountId, 'receiver', id);
      expect(records.map((row) => [row.operation, row.action])).toEqual([
        ['create', 'POST /receivers/'],
        ['update', 'PATCH /receivers/{receiver_id}/'],
        ['delete', 'DELETE /receivers/{receiver_id}/'],
      ]);
      expect(records[1].changes).toEqual({ name: { old: 'Depot', new: 'Depot North' } });
    });

    it('records a secret only as changed, never its value', async () => {
      // A credential made by the operator has no owner account: its records chain on the platform's.
      const [credential] = (await db.query(`SELECT id, coalesce(owner_account_id, $2) AS chain FROM api_credentials WHERE id = $1`, [tenant.credential.id, PLATFORM_AUDIT_ACCOUNT])) as Array<{ id: string; chain: string }>;
      await db.query(`UPDATE api_credentials SET secret_hash = 'rotated-hash-value' WHERE id = $1`, [credential.id]);
      const records = await recordsOf(credential.chain, 'api_credential', credential.id);
      const rotation = records[records.length - 1];
      expect(rotation.changes).toEqual({ secret_hash: { changed: true } });
      expect(JSON.stringify(records)).not.toContain('rotated-hash-value');
    });

    it('records a change made with no known actor as the system (never skipped)', async () => {
      const device = await registerDevice(db, tenant.accountId);
      await db.query(`UPDATE device_lifecycles SET label = 'by hand' WHERE device_id = $1 AND ended_at IS NULL`, [device.id]);
      const records = (await recordsOf(tenant.accountId, 'device', device.id)).filter((row) => row.operation === 'update');
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ actor_type: 'system', action: 'device.update', changes: { label: { old: null, new: 'by hand' } } });
    });

    it('records nothing for what telemetry moves on a device (last seen, battery, position)', async () => {
      const device = await registerDevice(db, tenant.accountId);
      const count = async () => (await recordsOf(tenant.accountId, 'device', device.id)).length;
      const initial = await count();
      await db.query(`UPDATE device_lifecycles SET last_seen_at = now(), battery = 80, latitude = 1, longitude = 2, location_at = now() WHERE device_id = $1`, [device.id]);
      expect(await count()).toBe(initial);
    });
  });

  describe('append-only and tamper-evident', () => {
    it('refuses UPDATE, DELETE and TRUNCATE of audit records', async () => {
      await expect(db.query(`UPDATE audit_events SET reason = 'edited' WHERE account_id = $1`, [tenant.accountId])).rejects.toThrow(/append-only/);
      await expect(db.query(`DELETE FROM audit_events WHERE account_id = $1`, [tenant.accountId])).rejects.toThrow(/append-only/);
      await expect(db.query(`TRUNCATE audit_events`)).rejects.toThrow(/append-only/);
    });

    it('chains concurrent changes of one account one after the other', async () => {
      const victim = await createTenant(api.app, undefined, 'Concurrent');
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          api.http.post(`${API}/carriers/`).set(victim.auth).set('Idempotency-Key', newKey()).send({ name: `Carrier ${i}`, mode: 'road' }).expect(201),
        ),
      );
      const verify = await runCaptured('audit:verify', '--account', victim.accountId, '--json');
      expect(verify.code).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ intact: true, broken: null });
      expect((JSON.parse(verify.stdout) as { records: number }).records).toBeGreaterThanOrEqual(12);
    });

    /** A new account with a few records, for one tampering. */
    async function chainOf(name: string): Promise<{ accountId: string; ids: string[] }> {
      const victim = await createTenant(api.app, undefined, name);
      for (const label of ['one', 'two', 'three']) {
        await api.http.post(`${API}/receivers/`).set(victim.auth).set('Idempotency-Key', newKey()).send({ name: label }).expect(201);
      }
      const ids = ((await db.query(`SELECT id FROM audit_events WHERE account_id = $1 ORDER BY seq`, [victim.accountId])) as Array<{ id: string }>).map((row) => row.id);
      expect(ids.length).toBeGreaterThanOrEqual(4);
      const intact = await runCaptured('audit:verify', '--account', victim.accountId);
      expect({ code: intact.code, out: intact.stdout }).toEqual({ code: 0, out: expect.stringContaining('intact') as unknown });
      return { accountId: victim.accountId, ids };
    }


    const verify = async (accountId: string) => {
      const result = await runCaptured('audit:verify', '--account', accountId, '--json');
      return { code: result.code, report: JSON.parse(result.stdout) as { intact: boolean; broken: { seq: number; id: string | null; problem: string } | null } };
    };

    it('audit:verify reports a record altered directly in PostgreSQL', async () => {
      const { accountId, ids } = await chainOf('Altered');
      await behindTheBack(`UPDATE audit_events SET changes = jsonb_set(changes, '{name,new}', '"forged"') WHERE id = $1`, [ids[2]]);
      const { code, report } = await verify(accountId);
      expect(code).not.toBe(0);
      expect(report).toMatchObject({ intact: false, broken: { seq: 3, id: ids[2], problem: 'altered' } });
    });

    it('audit:verify reports a removed record', async () => {
      const { accountId, ids } = await chainOf('Removed');
      await behindTheBack(`DELETE FROM audit_events WHERE id = $1`, [ids[1]]);
      const { code, report } = await verify(accountId);
      expect(code).not.toBe(0);
      expect(report).toMatchObject({ intact: false, broken: { seq: 2, problem: 'missing' } });
    });

    it('audit:verify reports records put in another order', async () => {
      const { accountId, ids } = await chainOf('Reordered');
      await behindTheBack(`UPDATE audit_events SET seq = CASE WHEN id = $1 THEN seq + 1 ELSE seq - 1 END WHERE id IN ($1, $2)`, [ids[1], ids[2]]);
      const { code, report } = await verify(accountId);
      expect(code).not.toBe(0);
      expect(report).toMatchObject({ intact: false, broken: { seq: 2 } });
    });

    it('audit:verify reports records removed from the end of the chain', async () => {
      const { accountId, ids } = await chainOf('Truncated');
      await behindTheBack(`DELETE FROM audit_events WHERE id = $1`, [ids[ids.length - 1]]);
      const { code, report } = await verify(accountId);
      expect(code).not.toBe(0);
      expect(report).toMatchObject({ intact: false, broken: { seq: ids.length, problem: 'truncated' } });
    });

    it('audit:verify checks the platform chain and refuses a malformed account', async () => {
      expect((await runCaptured('audit:verify', '--platform')).code).toBe(0);
      expect((await runCaptured('audit:verify', '--account', 'nope')).code).toBe(2);
      expect(PLATFORM_AUDIT_ACCOUNT).toBe('00000000-0000-0000-0000-000000000000');
    });
  });

  describe('retention', () => {
    /** Appends a record to a chain at a given time, as the trigger would (its digest, under the head's lock). */
    async function appendAt(accountId: string, at: string): Promise<void> {
      await db.transaction(async (manager) => {
        await manager.query(`INSERT INTO audit_chain_heads (account_id, seq, hash) VALUES ($1, 0, '') ON CONFLICT (account_id) DO NOTHING`, [accountId]);
        const [head] = (await manager.query(`SELECT seq, hash FROM audit_chain_heads WHERE account_id = $1 FOR UPDATE`, [accountId])) as Array<{ seq: string; hash: string }>;
        const seq = Number(head.seq) + 1;
        const [row] = (await manager.query(
          `INSERT INTO audit_events
           SELECT (s.e).id, (s.e).account_id, (s.e).seq, (s.e).occurred_at, (s.e).actor_type, (s.e).actor_id, (s.e).client_address, (s.e).request_id,
                  (s.e).reason, (s.e).action, (s.e).operation, (s.e).resource_type, (s.e).resource_id, (s.e).changes, (s.e).prev_hash,
                  audit_event_digest((s.e).prev_hash, s.e)
             FROM (SELECT ROW(gen_random_uuid(), $1::uuid, $2::bigint, $3::timestamptz, 'system', NULL, NULL, NULL, NULL, 'test.backdated', 'update',
                              'test', 'retained', '{}'::jsonb, $4::text, '')::audit_events AS e) s
           RETURNING hash`,
          [accountId, seq, at, head.hash],
        )) as Array<{ hash: string }>;
        await manager.query(`UPDATE audit_chain_heads SET seq = $2, hash = $3 WHERE account_id = $1`, [accountId, seq, row.hash]);
      });
    }

    const verifyJson = async (accountId: string) => {
      const result = await runCaptured('audit:verify', '--account', accountId, '--json');
      return { code: result.code, report: JSON.parse(result.stdout) as { intact: boolean; records: number; anchor: { seq: number; partition: string } | null; broken: unknown } };
    };

    it('makes partitions ahead, drops whole expired months only, and the kept chain still verifies from its anchor', async () => {
      const accountId = randomUUID();
      for (const month of ['2001-01-15T00:00:00Z', '2001-02-15T00:00:00Z']) await db.query(`SELECT audit_ensure_partition($1::timestamptz)`, [month]);
      for (const at of ['2001-01-10T00:00:00Z', '2001-01-11T00:00:00Z', '2001-01-12T00:00:00Z', '2001-02-10T00:00:00Z', '2001-02-11T00:00:00Z']) await appendAt(accountId, at);
      const now = new Date().toISOString();
      await appendAt(accountId, now);
      await appendAt(accountId, now);
      expect(await verifyJson(accountId)).toMatchObject({ code: 0, report: { intact: true, records: 7, anchor: null } });

      const result = await api.app.get(HousekeepingService).runOnce();
      expect(result.auditPartitionsDropped).toEqual(['audit_events_200101', 'audit_events_200102']);
      const [left] = (await db.query(`SELECT to_regclass('audit_events_200101') AS january, to_regclass('audit_events_200102') AS february`)) as Array<Record<string, string | null>>;
      expect(left).toEqual({ january: null, february: null });
      // What is kept verifies from the anchor: the last record of the newest dropped month.
      expect(await verifyJson(accountId)).toMatchObject({ code: 0, report: { intact: true, records: 2, anchor: { seq: 5, partition: 'audit_events_200102' } } });
      expect((await runCaptured('audit:verify', '--account', accountId)).stdout).toContain('Records 1–5 were dropped by retention');

      // Partitions ahead: this month and the next two exist, and nothing waits in the default partition.
      const months = [0, 1, 2].map((ahead) => {
        const at = new Date();
        const month = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + ahead, 1));
        return `audit_events_${month.toISOString().slice(0, 7).replace('-', '')}`;
      });
      const present = (await db.query(`SELECT name, to_regclass(name) IS NOT NULL AS present FROM unnest($1::text[]) AS name`, [months])) as Array<{ present: boolean }>;
      expect(present.map((row) => row.present)).toEqual([true, true, true]);
      expect(await db.query(`SELECT count(*)::int AS n FROM audit_events_default`)).toEqual([{ n: 0 }]);

      // The anchors are append-only, and a removal at the start of the kept chain is still reported.
      await expect(db.query(`UPDATE audit_chain_anchors SET seq = 6 WHERE account_id = $1`, [accountId])).rejects.toThrow(/append-only/);
      await expect(db.query(`DELETE FROM audit_chain_anchors WHERE account_id = $1`, [accountId])).rejects.toThrow(/append-only/);
      await behindTheBack(`DELETE FROM audit_events WHERE account_id = $1 AND seq = 6`, [accountId]);
      expect(await verifyJson(accountId)).toMatchObject({ code: 2, report: { intact: false, broken: { seq: 6, problem: 'missing' } } });
    });

    it('never drops a month younger than 31 days, whatever it is asked', async () => {
      await expect(dropExpiredAuditPartitions(db, new Date())).rejects.toThrow(/younger than 31 days/);
    });
  });

  describe('the runtime role', () => {
    /** One statement as coldchain_runtime (migration AuditRuntimeRole), the role a deployment's api logs in with. */
    const asRuntime = (statement: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> =>
      db.transaction(async (manager) => {
        await manager.query(`SET LOCAL ROLE ${RUNTIME_ROLE}`);
        return (await manager.query(statement, params)) as Array<Record<string, unknown>>;
      });

    it('records its changes and reads the trail, but cannot write, rewrite or remove audit rows, not even in a partition', async () => {
      const accountId = await createAccount(db, 'Runtime Role Co');
      await asRuntime(`UPDATE accounts SET name = 'Runtime Role Co 2' WHERE id = $1`, [accountId]);
      const records = await recordsOf(accountId, 'account', accountId);
      expect(records[records.length - 1].changes).toEqual({ name: { old: 'Runtime Role Co', new: 'Runtime Role Co 2' } });
      expect(await asRuntime(`SELECT count(*)::int AS n FROM audit_events WHERE account_id = $1`, [accountId])).toEqual([{ n: records.length }]);

      const [{ partition }] = (await db.query(`SELECT tableoid::regclass::text AS partition FROM audit_events WHERE id = $1`, [records[0].id])) as Array<{ partition: string }>;
      for (const statement of [
        `UPDATE audit_events SET reason = 'edited' WHERE account_id = $1`,
        `DELETE FROM audit_events WHERE account_id = $1`,
        `INSERT INTO audit_events SELECT * FROM audit_events WHERE account_id = $1 LIMIT 1`,
        `UPDATE ${partition} SET reason = 'edited' WHERE account_id = $1`,
        `DELETE FROM ${partition} WHERE account_id = $1`,
        `UPDATE audit_chain_heads SET seq = 0 WHERE account_id = $1`,
        `INSERT INTO audit_chain_anchors (account_id, seq, hash, partition) VALUES ($1, 1, 'forged', 'none')`,
      ]) {
        await expect(asRuntime(statement, [accountId])).rejects.toThrow(/permission denied/);
      }
      await expect(asRuntime(`TRUNCATE audit_events`)).rejects.toThrow(/permission denied/);

      // Partitions ahead and the retention drop run as the trail's owner; a new month is closed to the role too.
      expect(await asRuntime(`SELECT audit_ensure_partition('2002-03-15T00:00:00Z') AS made`)).toEqual([{ made: 'audit_events_200203' }]);
      expect(await db.query(`SELECT has_table_privilege($1, 'audit_events_200203', 'UPDATE') AS can`, [RUNTIME_ROLE])).toEqual([{ can: false }]);
      expect(await asRuntime(`SELECT audit_drop_expired_partitions('2003-01-01T00:00:00Z') AS dropped`)).toEqual([{ dropped: 'audit_events_200203' }]);
    });

    it('runs the dispatcher\'s claim and the fan-out\'s ids (functions of the webhooks store, migrations WebhookClaimFunction, UuidV7Function, WebhookClaimByKey, WebhookClaimRing)', async () => {
      const worker = randomUUID();
      // Nothing to claim or grant: only the rows that say how many other dispatchers are live (migration WebhookClaimByKey)
      // and where the next claim's walk starts (WebhookClaimRing).
      expect(await asRuntime(`SELECT grant_scope, count(*)::int AS n FROM webhook_claim_deliveries($1, 1000, 0, 0, 0, 1, 1, '{}', '{}', '{}', '{}', NULL, NULL, 16) GROUP BY 1 ORDER BY 1`, [worker])).toEqual([
        { grant_scope: 'fleet', n: 1 },
        { grant_scope: 'resume', n: 1 },
      ]);
      expect(await asRuntime(`SELECT uuid_v7() IS NOT NULL AS made`)).toEqual([{ made: true }]);
      expect(await db.query('SELECT count(*)::int AS n FROM webhook_dispatchers WHERE worker_id = $1', [worker])).toEqual([{ n: 1 }]);
      await db.query('DELETE FROM webhook_dispatchers WHERE worker_id = $1', [worker]);
    });
  });

  describe('GET /audit-events/', () => {
    itAttributed('lists the account’s records newest first, filters them and pages with a cursor', async () => {
      const reader = await createTenant(api.app, undefined, 'Reader');
      const ids: string[] = [];
      for (const name of ['a', 'b', 'c']) {
        const res = await api.http.post(`${API}/carriers/`).set(reader.auth).set('Idempotency-Key', newKey()).send({ name, mode: 'road' }).expect(201);
        ids.push((res.body as { id: string }).id);
      }
      await api.http.patch(`${API}/carriers/${ids[0]}/`).set(reader.auth).set('X-Change-Reason', 'renamed').send({ name: 'a2' }).expect(200);

      const all = await api.http.get(`${API}/audit-events/?resource_type=carrier`).set(reader.auth).expect(200);
      const data = (all.body as { data: Array<{ id: string; resource_id: string; operation: string; reason: string | null; actor: { type: string; id: string } }> }).data;
      expect(data.map((event) => [event.resource_id, event.operation])).toEqual([
        [ids[0], 'update'],
        [ids[2], 'create'],
        [ids[1], 'create'],
        [ids[0], 'create'],
      ]);
      expect(data[0]).toMatchObject({ reason: 'renamed', actor: { type: 'credential', id: reader.credential.id } });
      expect((data[0] as unknown as { changes: unknown }).changes).toEqual([{ field: 'name', secret: false, old: '"a"', new: '"a2"' }]);

      const first = await api.http.get(`${API}/audit-events/?resource_type=carrier&limit=2`).set(reader.auth).expect(200);
      const page1 = first.body as { data: Array<{ id: string }>; links: { next: string } };
      expect(page1.data.map((event) => event.id)).toEqual(data.slice(0, 2).map((event) => event.id));
      const next = new URL(page1.links.next);
      const second = await api.http.get(`${next.pathname}${next.search}`).set(reader.auth).expect(200);
      expect((second.body as { data: Array<{ id: string }> }).data.map((event) => event.id)).toEqual(data.slice(2, 4).map((event) => event.id));

      const one = await api.http.get(`${API}/audit-events/?resource_id=${ids[0]}&action=${encodeURIComponent('PATCH /carriers/{carrier_id}/')}`).set(reader.auth).expect(200);
      expect((one.body as { data: unknown[] }).data).toHaveLength(1);
      const byActor = await api.http.get(`${API}/audit-events/?actor=${reader.credential.id}&resource_type=carrier`).set(reader.auth).expect(200);
      expect((byActor.body as { data: unknown[] }).data).toHaveLength(4);
      const future = await api.http.get(`${API}/audit-events/?from=2999-01-01T00:00:00Z`).set(reader.auth).expect(200);
      expect((future.body as { data: unknown[] }).data).toEqual([]);

      const detail = await api.http.get(`${API}/audit-events/${data[0].id}/`).set(reader.auth).expect(200);
      expect(detail.body).toEqual(data[0]);
      // Another account's record is not found, like any other resource.
      await api.http.get(`${API}/audit-events/${data[0].id}/`).set(tenant.auth).expect(404);
      const others = await api.http.get(`${API}/audit-events/?resource_id=${ids[0]}`).set(tenant.auth).expect(200);
      expect((others.body as { data: unknown[] }).data).toEqual([]);
    });

    itAttributed('audit:export writes a time range as CSV with each record\'s seq and hashes, formulas defused', async () => {
      const exported = await createTenant(api.app, undefined, 'Exported');
      const res = await api.http.post(`${API}/carriers/`).set(exported.auth).set('Idempotency-Key', newKey()).send({ name: 'x', mode: 'road' }).expect(201);
      await api.http.patch(`${API}/carriers/${(res.body as { id: string }).id}/`).set(exported.auth).set('X-Change-Reason', '=HYPERLINK("http://evil")').send({ name: 'y' }).expect(200);
      const all = await runCaptured('audit:export', '--account', exported.accountId, '--from', '2000-01-01T00:00:00Z');
      expect(all.code).toBe(0);
      const lines = all.stdout.split('\r\n').filter(Boolean);
      expect(lines[0]).toBe('occurred_at,seq,actor_type,actor_id,client_address,request_id,reason,action,operation,resource_type,resource_id,changes,prev_hash,hash');
      const hashes = ((await db.query(`SELECT hash FROM audit_events WHERE account_id = $1 ORDER BY seq DESC`, [exported.accountId])) as Array<{ hash: string }>).map((row) => row.hash);
      expect(lines.slice(1).map((line) => line.slice(line.lastIndexOf(',') + 1))).toEqual(hashes);
      expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"")"`);
      const none = await runCaptured('audit:export', '--account', exported.accountId, '--until', '2000-01-01T00:00:00Z');
      expect(none.stdout.split('\r\n').filter(Boolean)).toHaveLength(1);
      expect((await runCaptured('audit:export', '--account', exported.accountId, '--from', 'yesterday')).code).toBe(2);
    });

    itAttributed('audit:export --format pdf writes a document signed with Ed25519 that audit:verify-export and openssl accept, and a changed copy fails', async () => {
      const inspected = await createTenant(api.app, undefined, 'Inspected');
      const res = await api.http.post(`${API}/carriers/`).set(inspected.auth).set('Idempotency-Key', newKey()).send({ name: 'Cold Road', mode: 'road' }).expect(201);
      await api.http.patch(`${API}/carriers/${(res.body as { id: string }).id}/`).set(inspected.auth).set('X-Change-Reason', 'CAPA-7 depot').send({ name: 'Cold Road 2' }).expect(200);
      const dir = mkdtempSync(join(tmpdir(), 'audit-pdf-'));
      const file = join(dir, 'export.pdf');
      const exported = await runCaptured('audit:export', '--account', inspected.accountId, '--from', '2000-01-01T00:00:00Z', '--format', 'pdf', '--out', file);
      expect(exported).toMatchObject({ code: 0, stderr: '' });
      const [head] = (await db.query(`SELECT seq, hash FROM audit_chain_heads WHERE account_id = $1`, [inspected.accountId])) as Array<{ seq: string; hash: string }>;
      expect(exported.stdout).toContain(`chain head ${head.seq} ${head.hash}`);
      const pdf = readFileSync(file);
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      // The chain head is in the signed content (the document's Keywords as well as its first page).
      expect(pdf.toString('latin1')).toContain(`chain head seq ${head.seq} hash ${head.hash}`);
      expect(readFileSync(`${file}.sig`)).toHaveLength(64);

      expect(await runCaptured('audit:verify-export', file)).toMatchObject({ code: 0, stdout: expect.stringContaining('signature valid') as unknown });
      const key = join(dir, 'key.pem');
      writeFileSync(key, (await runCaptured('audit:export-key')).stdout);
      const openssl = (target: string) =>
        promisify(execFile)('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', key, '-rawin', '-in', target, '-sigfile', `${file}.sig`]).then(
          ({ stdout }) => stdout.trim(),
          (error: { stdout?: string }) => `failed: ${error.stdout ?? ''}`.trim(),
        );
      expect(await openssl(file)).toBe('Signature Verified Successfully');

      // One byte changed anywhere (here: a digit of the chain head in the Keywords) and neither accepts it.
      const forged = join(dir, 'forged.pdf');
      const text = pdf.toString('latin1');
      const at = text.indexOf(`hash ${head.hash}`) + 5;
      const copy = Buffer.from(pdf);
      copy[at] = copy[at] === 0x30 ? 0x31 : 0x30;
      writeFileSync(forged, copy);
      const refused = await runCaptured('audit:verify-export', forged, '--signature', `${file}.sig`);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('does NOT verify');
      expect(await openssl(forged)).toMatch(/^failed/);
      expect((await runCaptured('audit:export', '--account', inspected.accountId, '--format', 'pdf')).code).toBe(2); // no --out
      expect((await runCaptured('audit:export', '--account', inspected.accountId, '--format', 'docx', '--out', file)).code).toBe(2);
      expect((await runCaptured('audit:verify-export', join(dir, 'missing.pdf'))).code).toBe(2);
      rmSync(dir, { recursive: true, force: true });
    });

    it('needs the audit:read scope and validates its filters', async () => {
      const noScope = await createTenant(api.app, ['carriers:read'], 'No audit scope');
      await api.http.get(`${API}/audit-events/`).set(noScope.auth).expect(403);
      await api.http.get(`${API}/audit-events/?from=yesterday`).set(tenant.auth).expect(400);
      await api.http.get(`${API}/audit-events/?resource_type=Not%20a%20type`).set(tenant.auth).expect(400);
      await api.http.get(`${API}/audit-events/not-a-uuid/`).set(tenant.auth).expect(404);
    });
  });
});
