import type { AccountId } from '@app/vocabulary';
import { createWebhookEndpoint, type BenchEndpoint } from '../adapters/webhooks.adapter';
import { cpuPerUnit, medianOf, type SideRun } from '../harness/alternate';
import { residentNow } from '../harness/proc-stats';
import { Receiver } from '../harness/receiver';
import type { ResultRow } from '../harness/report';
import { servicesCpuRow, withServicesCpu } from '../harness/services-cpu';
import { createAccount } from '../seed/tenant';
import type { BenchContext, Scenario } from './scenario';
import { checkDeliveryLedger, deliverRound, webhookFeatureGate } from './webhook-fixture';

/** Endpoints in all, per size; each account has ENDPOINTS_PER_ACCOUNT of them. */
export const TENANT_SIZES = [10, 100, 1000] as const;
/** Every event fans out to this many endpoints at every size, so a delivery costs the same work. */
const ENDPOINTS_PER_ACCOUNT = 10;
const MAX_CPU_RATIO = 1.2;
const MIN_DELIVERIES_PER_SECOND = 1000;
const TARGET = `CPU per delivery ≤ ${MAX_CPU_RATIO} × tenants-10's; ≥ 1,000 deliveries/s`;

interface Size {
  endpoints: number;
  accounts: AccountId[];
  runs: SideRun[];
}

/**
 * Does a delivery cost more when there are more tenants and endpoints? The same work — 1,000
 * events (quick 200), each fanned out to the 10 endpoints of its account, so 10,000 deliveries per
 * round — delivered by the real api (outbox relay) and dispatcher to 10, 100 and 1,000 endpoints:
 * 1, 10 and 100 accounts of 10 endpoints each (the default cap is 20 per account), events spread
 * round-robin over the accounts. Each account's endpoints share one loopback HTTPS origin (a
 * tenant's own host; paths differ), answering 204. The sizes take turns within each round, in a
 * rotated order, so the machine's drift hits each alike. Its accounts are its own: no other
 * scenario's endpoint receives these events, and theirs stay idle here.
 */
export const webhookTenants: Scenario = {
  name: 'tenants',
  target: TARGET,
  ...webhookFeatureGate(),
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const origins = TENANT_SIZES.reduce((sum, endpoints) => sum + endpoints / ENDPOINTS_PER_ACCOUNT, 0);
    const receiver = await Receiver.start(ctx.root, ctx.tls, origins);
    try {
      const ports = [...receiver.ports];
      const sizes: Size[] = [];
      const ledgerEndpoints: BenchEndpoint[] = [];
      for (const endpoints of TENANT_SIZES) {
        const accounts: AccountId[] = [];
        for (let a = 0; a < endpoints / ENDPOINTS_PER_ACCOUNT; a++) {
          const accountId = await createAccount(ctx.db, `Bench tenants-${endpoints} account ${a + 1}`);
          const port = ports.shift() as number;
          for (let e = 0; e < ENDPOINTS_PER_ACCOUNT; e++) {
            ledgerEndpoints.push(await createWebhookEndpoint(ctx.root, ctx.db, ctx.config.secretsKey, accountId, `https://127.0.0.1:${port}/hooks/${e}`, ['alarm.created']));
          }
          accounts.push(accountId);
        }
        sizes.push({ endpoints, accounts, runs: [] });
      }
      ctx.log(`  ${TENANT_SIZES.join(', ')} endpoints on ${origins} receiver origins ready`);

      const round = withServicesCpu((size: Size, events: number): Promise<SideRun> =>
        deliverRound(ctx, receiver, events, events * ENDPOINTS_PER_ACCOUNT, (n) => size.accounts[n % size.accounts.length], `tenants-${size.endpoints}`),
        ctx.db,
      );
      const events = ctx.options.webhookEvents;
      // Warm-up: connections to every origin, JIT, the tables' first pages.
      for (const size of sizes) await round(size, Math.max(size.accounts.length, Math.ceil(events / 10)));
      for (let r = 0; r < ctx.options.rounds; r++) {
        for (let i = 0; i < sizes.length; i++) {
          const size = sizes[(i + r) % sizes.length];
          const connectionsBefore = await receiver.connections();
          const run = await round(size, events);
          size.runs.push(run);
          const connections = (await receiver.connections()) - connectionsBefore;
          const dispatcher = residentNow(ctx.dispatcher?.pid ?? 0);
          ctx.log(`  round ${r + 1}/${ctx.options.rounds} ${String(size.endpoints).padStart(4)} endpoints: ${describe(run)}; ${connections} new TLS connections; dispatcher RSS ${dispatcher.rssMb.toFixed(0)} MB, ${dispatcher.fds} fds`);
        }
      }
      await assertDeliveredOnce(ctx, sizes);
      await checkDeliveryLedger(ctx, receiver, ledgerEndpoints, 'tenants');
      return rows(ctx, sizes, events);
    } finally {
      await receiver.process.stop();
    }
  },
};

function describe(run: SideRun): string {
  const ms = (seconds: number | undefined): string => (seconds === undefined ? '—' : ((seconds / run.units) * 1000).toFixed(3));
  return `${run.value.toFixed(0)} deliveries/s, CPU-ms/delivery: dispatcher + api ${ms(run.cpuSeconds)}, bench database backends ${ms(run.extra?.databaseCpu)}, PostgreSQL (bench database + background writers) ${ms(run.extra?.servicesCpu)}, RabbitMQ ${ms(run.extra?.brokerCpu)}`;
}

/** Every (event, endpoint) of these accounts was delivered exactly once: succeeded at its first attempt. */
async function assertDeliveredOnce(ctx: BenchContext, sizes: Size[]): Promise<void> {
  const accounts = sizes.flatMap((s) => s.accounts);
  const [row] = (await ctx.db.query(
    `SELECT count(*)::int AS deliveries, count(*) FILTER (WHERE status <> 'succeeded' OR attempts <> 1)::int AS other
       FROM webhook_deliveries WHERE account_id = ANY($1::uuid[])`,
    [accounts],
  )) as Array<{ deliveries: number; other: number }>;
  if (row.other > 0) {
    // Why: a retry's first failure is its attempt log's (a timeout on a loaded machine is not a pipeline bug, a 5xx is).
    const causes = (await ctx.db.query(
      `SELECT coalesce(a.error, 'HTTP ' || a.status_code) AS cause, count(*)::int AS n
         FROM webhook_deliveries d JOIN webhook_attempts a ON a.webhook_delivery_id = d.id AND a.outcome <> 'succeeded'
        WHERE d.account_id = ANY($1::uuid[]) AND (d.status <> 'succeeded' OR d.attempts <> 1)
        GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
      [accounts],
    )) as Array<{ cause: string; n: number }>;
    throw new Error(`tenants: ${row.other} of ${row.deliveries} deliveries not succeeded at their first attempt (failed attempts: ${causes.map((c) => `${c.n} × ${c.cause}`).join(', ') || 'none logged'})`);
  }
}

function rows(ctx: BenchContext, sizes: Size[], events: number): ResultRow[] {
  const reference = cpuPerUnit(sizes[0].runs);
  const out: ResultRow[] = [];
  for (const size of sizes) {
    const scenario = `tenants-${size.endpoints}`;
    const perSecond = medianOf(size.runs);
    const cpu = cpuPerUnit(size.runs);
    const ratio = cpu / reference;
    out.push({
      scenario,
      metric: `${events.toLocaleString('en-US')} events × ${ENDPOINTS_PER_ACCOUNT} endpoints per round; ${size.endpoints.toLocaleString('en-US')} endpoints over ${size.accounts.length} accounts, HTTPS 204`,
      unit: 'deliveries/s',
      project: perSecond,
      baseline: null,
      ratio,
      target: TARGET,
      pass: ratio <= MAX_CPU_RATIO && perSecond >= MIN_DELIVERIES_PER_SECOND,
      status: 'measured',
      cpu: { per: 'delivery', project: cpu, baseline: reference },
      rounds: size.runs.length,
      samples: { project: size.runs.map((r) => r.value), baseline: [] },
      note: `ratio = CPU per delivery (dispatcher + api outbox relay) over tenants-${sizes[0].endpoints}'s (its baseline CPU column); over tenants-${sizes[1].endpoints}'s (same global concurrency): ${(cpu / cpuPerUnit(sizes[1].runs)).toFixed(2)}; CPU-ms per round: ${size.runs.map((r) => ((r.cpuSeconds / r.units) * 1000).toFixed(3)).join(', ')}`,
    });
    for (const key of ['databaseCpu', 'servicesCpu'] as const) {
      const row = servicesCpuRow(scenario, 'delivery', { project: size.runs, baseline: [] }, key);
      const first = servicesCpuRow(scenario, 'delivery', { project: sizes[0].runs, baseline: [] }, key);
      if (!row?.cpu || !first?.cpu) continue;
      // Also against the smallest size: the info rows' ratio is their CPU per delivery over tenants-10's.
      out.push({ ...row, ratio: row.cpu.project !== null && first.cpu.project ? row.cpu.project / first.cpu.project : null, cpu: { ...row.cpu, baseline: first.cpu.project } });
    }
  }
  ctx.log(`  CPU per delivery vs ${sizes[0].endpoints} endpoints: ${out.filter((r) => r.status === 'measured').map((r) => `${r.scenario} ${r.ratio?.toFixed(2)}`).join(', ')}`);
  return out;
}
