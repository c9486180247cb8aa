import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { alternate, cpuPerUnit, medianOf, type SideRun } from '../harness/alternate';
import type { ResultRow } from '../harness/report';
import { servicesCpuRow, withServicesCpu } from '../harness/services-cpu';
import { median, nowMs, percentile } from '../harness/stats';
import { seedDevices } from '../seed/devices';
import { createAccount } from '../seed/tenant';
import type { BenchContext, Scenario } from './scenario';

/** The audit trigger on the table PATCH /devices/{id}/settings/ writes (migration AuditTrail: `audit_<table>`). */
const TABLE = 'device_lifecycles';
const TRIGGER = 'audit_device_lifecycles';
/** Devices the requests go round (one request at a time), so that no single row is the whole run. */
const DEVICES = 50;
const IN_DATABASE_REPEATS = 30;

async function setTrigger(db: Pick<DataSource, 'query'>, enabled: boolean): Promise<void> {
  await db.query(`ALTER TABLE ${TABLE} ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER ${TRIGGER}`);
}

/**
 * "One insert in the same transaction" (issue 30 item 5), as a bench-only trigger in the audit
 * trigger's place: a single INSERT of a record of the same size into audit_events (same
 * partitions, same indexes), without the audit trigger's work (the changed fields, the chain
 * head's lock and update, the SHA-256). The audit trigger's cost beyond it is what recording
 * adds beyond one insert.
 */
const PLAIN_INSERT = 'bench_one_audit_insert';

async function createPlainInsertTrigger(db: Pick<DataSource, 'query'>): Promise<void> {
  await db.query(`
    CREATE OR REPLACE FUNCTION ${PLAIN_INSERT}() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
      INSERT INTO audit_events (account_id, seq, occurred_at, actor_type, actor_id, client_address, request_id, reason,
                                action, operation, resource_type, resource_id, changes, prev_hash, hash)
      VALUES (NEW.account_id, 0, now(), 'credential', 'bench-plain-insert', '127.0.0.1', 'bench', NULL,
              'PATCH /devices/{device_id}/settings/', 'update', 'device', NEW.device_id::text,
              jsonb_build_object('thresholds', jsonb_build_object('old', OLD.thresholds, 'new', NEW.thresholds)),
              repeat('0', 64), repeat('0', 64));
      RETURN NULL;
    END $$`);
  await db.query(`DROP TRIGGER IF EXISTS ${PLAIN_INSERT} ON ${TABLE}`);
  await db.query(`CREATE TRIGGER ${PLAIN_INSERT} AFTER UPDATE ON ${TABLE} FOR EACH ROW EXECUTE FUNCTION ${PLAIN_INSERT}()`);
}

async function dropPlainInsertTrigger(db: Pick<DataSource, 'query'>): Promise<void> {
  await db.query(`DROP TRIGGER IF EXISTS ${PLAIN_INSERT} ON ${TABLE}`);
  await db.query(`DROP FUNCTION IF EXISTS ${PLAIN_INSERT}()`);
}

/** What the settings UPDATE fires: the audit trigger as deployed, nothing, or the one plain insert. */
type Recording = 'audit' | 'off' | 'one-insert';

async function setRecording(db: Pick<DataSource, 'query'>, recording: Recording): Promise<void> {
  await setTrigger(db, recording === 'audit');
  await db.query(`ALTER TABLE ${TABLE} ${recording === 'one-insert' ? 'ENABLE' : 'DISABLE'} TRIGGER ${PLAIN_INSERT}`);
}

async function auditRecords(db: DataSource, accountId: string): Promise<number> {
  const rows = (await db.query('SELECT count(*)::int AS n FROM audit_events WHERE account_id = $1', [accountId])) as Array<{ n: number }>;
  return rows[0].n;
}

/**
 * The trigger's own time for one settings UPDATE, as PostgreSQL counts it (EXPLAIN ANALYZE's
 * "Triggers"), median of `repeats`, each in a transaction rolled back: the floor of what
 * recording costs a request, without HTTP, the pool or the network.
 */
export async function triggerMsPerUpdate(db: DataSource, lifecycleId: string, repeats: number): Promise<{ triggerMs: number; updateMs: number }> {
  const trigger: number[] = [];
  const update: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query(`SELECT set_config('audit.context', $1, true)`, [
        JSON.stringify({ actor_type: 'credential', actor_id: 'bench', client_address: '127.0.0.1', request_id: `bench-${i}`, reason: null, action: 'PATCH /devices/{device_id}/settings/' }),
      ]);
      const rows = (await runner.query(
        `EXPLAIN (ANALYZE, FORMAT JSON)
         UPDATE ${TABLE} SET thresholds = jsonb_set(coalesce(thresholds, '{}'), '{temperature_max}', to_jsonb($2::numeric)), updated_at = now() WHERE id = $1`,
        [lifecycleId, 5 + (i % 2)],
      )) as Array<{ 'QUERY PLAN': Array<{ 'Execution Time': number; Triggers?: Array<{ 'Trigger Name': string; Time: number }> }> }>;
      const [plan] = rows[0]['QUERY PLAN'];
      const audit = (plan.Triggers ?? []).find((t) => t['Trigger Name'] === TRIGGER);
      if (!audit) throw new Error(`EXPLAIN shows no ${TRIGGER} trigger on the settings UPDATE`);
      trigger.push(audit.Time);
      update.push(plan['Execution Time']);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  }
  return { triggerMs: median(trigger), updateMs: median(update) };
}

/**
 * PATCH /devices/{id}/settings/ with the audit trigger as deployed (project) and with it disabled
 * on the bench's own database (baseline), alternating rounds in one run (issue 30 item 5: "no
 * measurable latency beyond one insert in the same transaction"). One client, one request at a
 * time, over 50 devices, each request changing temperature_max (an UPDATE that changes nothing
 * records nothing). Each side checks that it recorded one record per request (on) or none (off).
 * The api's and PostgreSQL's CPU per request are reported, and the trigger's own time from
 * EXPLAIN ANALYZE. Either way the api sets `audit.context` on its connection: that round trip is
 * part of both sides.
 */
export const auditWriteCost: Scenario = {
  name: 'audit-write-cost',
  target: 'reported (difference ≈ one insert in the same transaction)',
  unavailable: () => null,
  // The scenario's own statements against the current schema: the trigger toggled (in a transaction
  // rolled back, so that other suites sharing the database never see it off), the record count,
  // and the in-database measurement on a device of its own.
  probe: async (db) => {
    const accountId = await createAccount(db, 'Bench audit write probe');
    const [device] = await seedDevices(db, accountId, 1, new Date(Date.now() - 86_400_000), `BENCH-AUDIT-${randomUUID().slice(0, 8)}`);
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await setTrigger(runner, false);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
    await auditRecords(db, accountId);
    await triggerMsPerUpdate(db, device.lifecycleId, 1);
  },
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const devices = ctx.devices.slice(1, 1 + DEVICES);
    const requests = ctx.options.quick ? 150 : 400;
    const sent = new Map<string, number>();
    const patchOnce = async (deviceId: string): Promise<number> => {
      const n = (sent.get(deviceId) ?? 0) + 1;
      sent.set(deviceId, n);
      const start = nowMs();
      const response = await fetch(`${ctx.api.base}/devices/${deviceId}/settings/`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${ctx.tenant.token}`, 'content-type': 'application/json' },
        // Alternates 6 and 7 per device: every request changes the row (the seed's value is 8).
        body: JSON.stringify({ thresholds: { temperature_max: 6 + (n % 2) } }),
      });
      const text = await response.text();
      const ms = nowMs() - start;
      if (response.status !== 200) throw new Error(`PATCH settings: HTTP ${response.status} ${text.slice(0, 300)}`);
      return ms;
    };
    const series = async (n: number): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) times.push(await patchOnce(devices[i % devices.length].deviceId));
      return times;
    };

    ctx.cleanup.add('re-enable the audit trigger, drop the one-insert trigger', async () => {
      await setTrigger(ctx.db, true);
      await dropPlainInsertTrigger(ctx.db);
    });
    await createPlainInsertTrigger(ctx.db);
    const side = (recording: Recording) =>
      withServicesCpu(async (): Promise<SideRun> => {
        await setRecording(ctx.db, recording);
        const before = await auditRecords(ctx.db, ctx.tenant.accountId);
        const cpu = ctx.api.process.cpuSeconds();
        const times = await series(requests);
        const cpuSeconds = ctx.api.process.cpuSeconds() - cpu;
        const recorded = (await auditRecords(ctx.db, ctx.tenant.accountId)) - before;
        if (recorded !== (recording === 'off' ? 0 : requests)) throw new Error(`recording ${recording}: ${recorded} audit records for ${requests} requests`);
        return { value: percentile(times, 50), cpuSeconds, units: requests, extra: { p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length } };
      }, ctx.db);
    const describe = (r: SideRun): string =>
      `p50 ${r.value.toFixed(2)} ms, p99 ${(r.extra?.p99 ?? NaN).toFixed(2)} ms, ${((r.cpuSeconds / r.units) * 1000).toFixed(2)} api CPU-ms/req, ${(((r.extra?.servicesCpu ?? NaN) / r.units) * 1000).toFixed(2)} PostgreSQL CPU-ms/req`;
    let runs: Awaited<ReturnType<typeof alternate>>;
    let againstInsert: Awaited<ReturnType<typeof alternate>>;
    let inDatabase: { triggerMs: number; updateMs: number };
    try {
      for (const recording of ['audit', 'off', 'one-insert'] as const) {
        await setRecording(ctx.db, recording);
        await series(30);
      }
      ctx.log('  audit trigger (project) vs no trigger (baseline)');
      runs = await alternate(ctx.options.rounds, side('audit'), side('off'), ctx.log, describe);
      ctx.log('  audit trigger (project) vs one plain insert into audit_events in its place (baseline)');
      againstInsert = await alternate(ctx.options.rounds, side('audit'), side('one-insert'), ctx.log, describe);
      await setRecording(ctx.db, 'audit');
      inDatabase = await triggerMsPerUpdate(ctx.db, devices[0].lifecycleId, IN_DATABASE_REPEATS);
      ctx.log(`  in the database: the settings UPDATE ${inDatabase.updateMs.toFixed(3)} ms, of which the audit trigger ${inDatabase.triggerMs.toFixed(3)} ms (median of ${IN_DATABASE_REPEATS})`);
    } finally {
      await setTrigger(ctx.db, true);
      await dropPlainInsertTrigger(ctx.db);
    }

    const row = (quantile: 'p50' | 'p99' | 'mean', pair: Awaited<ReturnType<typeof alternate>>, versus: 'off' | 'one insert'): ResultRow => {
      const pick = (r: SideRun): number => (quantile === 'p50' ? r.value : (r.extra?.[quantile] ?? NaN));
      const project = medianOf(pair.project, pick);
      const baseline = medianOf(pair.baseline, pick);
      return {
        scenario: 'audit-write-cost',
        metric:
          versus === 'off'
            ? `PATCH /devices/{id}/settings/ ${quantile} latency, audit trigger on (project) vs off (baseline), one client, ${requests} requests per round`
            : `PATCH /devices/{id}/settings/ ${quantile} latency, audit trigger (project) vs one plain insert of a record into audit_events in its place (baseline)`,
        unit: 'ms',
        project,
        baseline,
        ratio: project / baseline,
        target: 'reported',
        pass: null,
        status: 'info',
        cpu: quantile === 'p50' ? { per: 'request', project: cpuPerUnit(pair.project), baseline: cpuPerUnit(pair.baseline) } : undefined,
        rounds: ctx.options.rounds,
        note:
          quantile === 'p50' && versus === 'off'
            ? `difference ${(project - baseline).toFixed(2)} ms; the trigger itself (EXPLAIN ANALYZE, median of ${IN_DATABASE_REPEATS}): ${inDatabase.triggerMs.toFixed(3)} ms of a ${inDatabase.updateMs.toFixed(3)} ms UPDATE`
            : `difference ${(project - baseline).toFixed(2)} ms`,
        samples: { project: pair.project.map(pick), baseline: pair.baseline.map(pick) },
      };
    };
    return [
      row('p50', runs, 'off'),
      row('p99', runs, 'off'),
      row('mean', runs, 'off'),
      row('p50', againstInsert, 'one insert'),
      row('p99', againstInsert, 'one insert'),
      row('mean', againstInsert, 'one insert'),
      ...[
        servicesCpuRow('audit-write-cost', 'request', runs),
        servicesCpuRow('audit-write-cost', 'request', runs, 'databaseCpu'),
        ...[servicesCpuRow('audit-write-cost', 'request', againstInsert), servicesCpuRow('audit-write-cost', 'request', againstInsert, 'databaseCpu')].map((r) =>
          r === null ? null : { ...r, metric: `${r.metric}, audit trigger (project) vs one plain insert (baseline)` },
        ),
      ].filter((r): r is ResultRow => r !== null),
    ];
  },
};
