import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { alternate, cpuPerUnit, medianOf, type SideRun } from '../harness/alternate';
import type { ResultRow } from '../harness/report';
import { readLedger } from '../harness/ledger';
import { runJson } from '../harness/run-json';
import { brokerCpuRow, extraPerUnit, processCpuRow, servicesCpuRow, withServicesCpu } from '../harness/services-cpu';
import { sleep } from '../harness/stats';
import type { BenchContext, Scenario } from './scenario';
import { alarmData, checkDeliveryLedger, deliverRound, receiverWithEndpoints, webhookFeatureGate } from './webhook-fixture';

const TARGET = '≥ 1,000 deliveries/s and ratio ≥ 0.7';
const ENDPOINTS = 10;
/** The dispatcher's default WEBHOOK_CONCURRENCY_PER_ENDPOINT; the baseline uses the same. */
const PER_ENDPOINT = 4;

/**
 * Events committed through the outbox → relay → RabbitMQ → dispatcher → signed HTTPS POSTs to 10
 * loopback endpoints answering 204, until every delivery arrived; against a bare loop of the
 * same signed POSTs with the same per-endpoint concurrency over keep-alive connections: 40 requests
 * in flight on both sides (the harness's dispatcher runs without a per-account cap below its
 * concurrency, see bench/harness/app-env.ts). `webhooks-floor` measures, in the same run, what
 * PostgreSQL must spend per delivery whatever the pipeline.
 */
export const webhooks: Scenario = {
  name: 'webhooks',
  target: TARGET,
  ...webhookFeatureGate(),
  // The ledger's statement (every webhook scenario ends with it).
  probe: async (db) => {
    await readLedger(db, [], new Map());
  },
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const dispatcher = ctx.dispatcher;
    if (!dispatcher) throw new Error('no dispatcher');
    const { receiver, endpoints } = await receiverWithEndpoints(ctx, ENDPOINTS, ['alarm.created'], '/hooks');
    try {
      const project = withServicesCpu((events: number): Promise<SideRun> => deliverRound(ctx, receiver, events, events * endpoints.length));

      const baseline = withServicesCpu(async (events: number): Promise<SideRun> => {
        await receiver.reset();
        const bodies = Array.from({ length: events }, (_, n) =>
          JSON.stringify({ id: randomUUID(), type: 'alarm.created', created_at: new Date().toISOString(), data: alarmData(ctx, n) }),
        );
        const result = await runJson<{ ms: number; cpuSeconds: number; delivered: number }>(join(ctx.root, 'dist/bench/baseline/webhook-loop.js'), {
          // Its own path on the same servers, so that the receiver's ledger tells its requests from the dispatcher's.
          endpoints: endpoints.map((e) => ({ url: `${e.url}-baseline`, secret: e.secret })),
          bodies,
          eventType: 'alarm.created',
          perEndpoint: PER_ENDPOINT,
        }, { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: ctx.tls.caFile });
        const received = await receiver.count();
        if (received !== events * endpoints.length) throw new Error(`baseline: receiver counted ${received} of ${events * endpoints.length}`);
        return { value: result.delivered / (result.ms / 1000), cpuSeconds: result.cpuSeconds, units: result.delivered };
      });

      const events = ctx.options.webhookEvents;
      await project(Math.ceil(events / 10));
      await baseline(Math.ceil(events / 10));
      const tablesBefore = await tableActivity(ctx);
      const runs = await alternate(
        ctx.options.rounds,
        () => project(events),
        () => baseline(events),
        ctx.log,
        (r) => `${r.value.toFixed(0)} deliveries/s, ${((r.cpuSeconds / r.units) * 1000).toFixed(2)} CPU-ms/delivery`,
      );
      // Every (event, endpoint) of the scenario — warm-up and rounds — is accounted for, or the run fails.
      await checkDeliveryLedger(ctx, receiver, endpoints, 'webhooks');
      const p = medianOf(runs.project);
      const b = medianOf(runs.baseline);
      const tables = describeActivity(tablesBefore, await tableActivity(ctx), events * ENDPOINTS * ctx.options.rounds);
      ctx.log(`webhooks: ${tables}`);
      for (const r of runs.project) r.extra = { ...r.extra, totalCpu: r.cpuSeconds + (r.extra?.servicesCpu ?? 0) + (r.extra?.brokerCpu ?? 0) };
      const total = extraPerUnit(runs.project, 'totalCpu');
      return [
        {
          scenario: 'webhooks',
          metric: `${events.toLocaleString('en-US')} events × ${ENDPOINTS} endpoints per round, HTTPS 204`,
          unit: 'deliveries/s',
          project: p,
          baseline: b,
          ratio: p / b,
          target: TARGET,
          pass: p >= 1000 && p / b >= 0.7,
          status: 'measured',
          cpu: { per: 'delivery', project: cpuPerUnit(runs.project), baseline: cpuPerUnit(runs.baseline) },
          rounds: ctx.options.rounds,
          samples: { project: runs.project.map((r) => r.value), baseline: runs.baseline.map((r) => r.value) },
          note: 'project CPU = dispatcher + api (outbox relay)',
        },
        ...[
          processCpuRow('webhooks', 'dispatcher CPU', 'delivery', runs, 'dispatcherCpu'),
          processCpuRow('webhooks', 'api CPU (outbox relay)', 'delivery', runs, 'apiCpu'),
          servicesCpuRow('webhooks', 'delivery', runs),
          brokerCpuRow('webhooks', 'delivery', runs),
        ].filter((row): row is ResultRow => row !== null),
        {
          scenario: 'webhooks',
          metric: 'total CPU per delivery: dispatcher + api + PostgreSQL + RabbitMQ (median of the rounds\' sums)',
          unit: '',
          project: null,
          baseline: null,
          ratio: null,
          target: '≤ 0.25 CPU-ms/delivery (issue 26; stretch 0.15)',
          pass: total === null ? null : total <= 0.00025,
          status: total === null ? 'info' : 'measured',
          cpu: { per: 'delivery', project: total, baseline: cpuPerUnit(runs.baseline) },
          rounds: ctx.options.rounds,
          note: tables,
        },
      ];
    } finally {
      await receiver.process.stop();
    }
  },
};

interface TableActivity {
  tables: Map<string, { inserts: number; updates: number; hot: number; deletes: number }>;
  commits: number;
}

const WEBHOOK_TABLES = ['outbox_events', 'webhook_deliveries', 'webhook_attempts', 'webhook_endpoints'];

/** Row writes per table and commits of the bench database so far (statistics reach the views within a second or so). */
async function tableActivity(ctx: BenchContext): Promise<TableActivity> {
  await sleep(1_500);
  const rows = (await ctx.db.query(
    `SELECT relname, n_tup_ins::float8 AS ins, n_tup_upd::float8 AS upd, n_tup_hot_upd::float8 AS hot, n_tup_del::float8 AS del
       FROM pg_stat_user_tables WHERE relname = ANY($1)`,
    [WEBHOOK_TABLES],
  )) as Array<{ relname: string; ins: number; upd: number; hot: number; del: number }>;
  const [db] = (await ctx.db.query(`SELECT xact_commit::float8 AS commits FROM pg_stat_database WHERE datname = current_database()`)) as Array<{ commits: number }>;
  return {
    tables: new Map(rows.map((r) => [r.relname, { inserts: r.ins, updates: r.upd, hot: r.hot, deletes: r.del }])),
    commits: db?.commits ?? 0,
  };
}

/** Per 1,000 deliveries of the measured rounds (both sides; the baseline writes nothing): inserts, updates (HOT), deletes per table, commits. */
function describeActivity(before: TableActivity, after: TableActivity, deliveries: number): string {
  const per = (n: number): string => ((n / deliveries) * 1000).toFixed(0);
  const parts = WEBHOOK_TABLES.map((name) => {
    const a = after.tables.get(name);
    const b = before.tables.get(name) ?? { inserts: 0, updates: 0, hot: 0, deletes: 0 };
    if (!a) return `${name} —`;
    return `${name} ${per(a.inserts - b.inserts)} ins / ${per(a.updates - b.updates)} upd (${per(a.hot - b.hot)} HOT) / ${per(a.deletes - b.deletes)} del`;
  });
  return `per 1,000 deliveries: ${parts.join('; ')}; ${per(after.commits - before.commits)} commits (the harness's outbox writes included)`;
}
