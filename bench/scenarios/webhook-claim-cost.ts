import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { claimWindow } from '@app/webhooks';
import { claimDueDeliveries } from '@app/webhooks/store/webhook-deliveries.repository';
import type { ResultRow } from '../harness/report';
import { median, nowMs } from '../harness/stats';
import type { BenchContext, Scenario } from './scenario';

/** Endpoints with due deliveries (10 per account, as in the tenants scenario); 5,000 only in full runs. */
const SIZES = [10, 100, 1000] as const;
const FULL_EXTRA_SIZE = 5000;
const ENDPOINTS_PER_ACCOUNT = 10;
/** Due deliveries per endpoint, plus this many leased (in flight, due later). */
const DUE_PER_ENDPOINT = 10;
const LEASED_PER_ENDPOINT = 2;
const REPEATS = 15;
/** The dispatcher's calls at its defaults: 2 × WEBHOOK_CONCURRENCY rows at most, 2 × per-endpoint and per-account shares. */
const CLAIMS = [
  { label: 'a full claim (limit 128)', limit: 128 },
  { label: 'a refill (limit 8)', limit: 8 },
] as const;
const PER_ENDPOINT = 8;
const PER_ACCOUNT = 32;
const LEASE_MS = 70_000;

/**
 * The dispatcher's claim statement (`claimDueDeliveries`, the real SQL) timed against a backlog
 * spread over 10, 100 and 1,000 endpoints (full runs: also 5,000): does one claim cost what it
 * claims, or what is pending? Everything happens in one transaction that is rolled back, each
 * claim under a savepoint, so the dispatcher and the other scenarios never see these rows (their
 * claims only skip the uncommitted index entries meanwhile). Reported: the shared buffer pages one
 * claim touches (auto_explain, this session only) — a count of work that other load on a shared
 * machine cannot inflate — and, in the note, the statement's wall time (median of 15).
 */
export const webhookClaimCost: Scenario = {
  name: 'tenants-claim',
  target: 'reported (cost of one claim vs endpoints with due deliveries)',
  unavailable: () => null,
  // The scenario's own statements (seeding, the claim under auto_explain) at the smallest size, once:
  // test/e2e/bench-probes.e2e-spec.ts runs this against the current schema and queries.
  probe: async (db) => {
    await measureClaimCost(db, SIZES[0], 1);
  },
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const sizes = ctx.options.quick ? [...SIZES] : [...SIZES, FULL_EXTRA_SIZE];
    const measured: Measured[] = [];
    for (const endpoints of sizes) {
      const claims = await measureClaimCost(ctx.db, endpoints, REPEATS);
      measured.push({ endpoints, claims });
      ctx.log(`  ${String(endpoints).padStart(4)} endpoints with due deliveries: ${CLAIMS.map((c, i) => `${c.label} ${claims[i].ms.toFixed(2)} ms, ${claims[i].pages} buffer pages`).join('; ')}`);
    }
    const rows: ResultRow[] = [];
    for (const { endpoints, claims } of measured) {
      CLAIMS.forEach((claim, i) => {
        const reference = measured[0].claims[i];
        rows.push({
          scenario: `tenants-claim-${endpoints}`,
          metric: `one claim (its statements), ${claim.label}, ${endpoints.toLocaleString('en-US')} endpoints × ${DUE_PER_ENDPOINT} due deliveries: buffer pages touched`,
          unit: 'pages',
          project: claims[i].pages,
          baseline: reference.pages,
          ratio: claims[i].pages / reference.pages,
          target: 'reported',
          pass: null,
          status: 'info',
          rounds: REPEATS,
          note: `baseline = the same claim with ${measured[0].endpoints} endpoints; wall time median ${claims[i].ms.toFixed(2)} ms (${measured[0].endpoints} endpoints: ${reference.ms.toFixed(2)} ms)`,
        });
      });
    }
    return rows;
  },
};

/**
 * Seeds `endpoints` endpoints with due work in a transaction that is rolled back, and runs each of
 * CLAIMS `repeats` times (wall time, median) and once more under auto_explain (buffer pages).
 * The claim runs as a dispatcher worker of its own (a fresh worker id, as each process has).
 */
export async function measureClaimCost(db: DataSource, endpoints: number, repeats: number): Promise<Measured['claims']> {
  // Dead index entries (earlier scenarios' closed deliveries, the previous size's rolled-back
  // rows) cost the loose index scan as much as live ones until vacuumed: start each size clean.
  await db.query('VACUUM webhook_deliveries');
  const workerId = randomUUID();
  const runner = db.createQueryRunner();
  const client = (await runner.connect()) as PoolClient;
  const plans: PlanTotals[] = [];
  const onNotice = (notice: { message?: string }): void => {
    const plan = planTotals(notice.message ?? '');
    if (plan) plans.push(plan);
  };
  client.on('notice', onNotice);
  try {
    await runner.startTransaction();
    // Only this backlog is due: deliveries someone else left pending (the e2e probe shares its test
    // database with other suites) wait past the claims, inside this transaction only (rolled back).
    await runner.query(`UPDATE webhook_deliveries SET next_attempt_at = 'infinity' WHERE status = 'pending'`);
    await seedBacklog(runner, endpoints);
    // auto_explain reports the buffer pages one execution touched (to this session only, as a NOTICE):
    // a count of work that other load on a shared machine cannot inflate, unlike time.
    await runner.query(`LOAD 'auto_explain'`);
    for (const setting of ["log_level = 'notice'", 'log_analyze = on', 'log_timing = off', 'log_buffers = on', "log_format = 'json'"]) {
      await runner.query(`SET LOCAL auto_explain.${setting}`);
    }
    await runner.query(`SET LOCAL client_min_messages = notice`);
    const results: Measured['claims'] = [];
    for (const claim of CLAIMS) {
      const claimOnce = async (): Promise<number> => {
        await runner.query('SAVEPOINT claim');
        const start = nowMs();
        const { claimed: rows } = await claimDueDeliveries(runner.manager, {
          workerId,
          limit: claim.limit,
          holdPerEndpoint: PER_ENDPOINT,
          holdPerAccount: PER_ACCOUNT,
          inHandEndpoints: new Map(),
          inHandAccounts: new Map(),
          perEndpoint: PER_ENDPOINT / 2,
          perAccount: PER_ACCOUNT / 2,
          leaseMs: LEASE_MS,
          // As the dispatcher's first claim of a round: the window from the start of the ring.
          after: null,
          window: claimWindow(claim.limit),
        });
        const ms = nowMs() - start;
        await runner.query('ROLLBACK TO SAVEPOINT claim');
        if (rows.length !== expectedRows(endpoints, claim.limit)) throw new Error(`claim returned ${rows.length} rows, expected ${expectedRows(endpoints, claim.limit)}`);
        return ms;
      };
      const times: number[] = [];
      for (let i = 0; i < repeats; i++) times.push(await claimOnce());
      await runner.query('SET LOCAL auto_explain.log_min_duration = 0');
      plans.length = 0;
      await claimOnce();
      await runner.query('SET LOCAL auto_explain.log_min_duration = -1');
      // A claim is more than one statement (the claims lock, the dispatcher's renewal, the claim, its grants): all of them count.
      if (plans.length === 0) throw new Error('auto_explain reported no plan for the claim');
      results.push({ ms: median(times), pages: plans.reduce((sum, plan) => sum + plan.pages, 0) });
    }
    return results;
  } finally {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    client.off('notice', onNotice);
    await runner.release();
  }
}

interface Measured {
  endpoints: number;
  claims: Array<{ ms: number; pages: number }>;
}

interface PlanTotals {
  pages: number;
}

/** Shared buffer pages (hit + read) of an auto_explain JSON plan notice; null for other notices. */
function planTotals(message: string): PlanTotals | null {
  const at = message.indexOf('{');
  if (!message.includes('plan:') || at < 0) return null;
  const plan = (JSON.parse(message.slice(at)) as { Plan?: Record<string, number> }).Plan;
  return plan ? { pages: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0) } : null;
}

/** What the caps allow: `limit` in all, PER_ACCOUNT per account, PER_ENDPOINT per endpoint (all due). */
function expectedRows(endpoints: number, limit: number): number {
  const perAccount = Math.min(PER_ACCOUNT, ENDPOINTS_PER_ACCOUNT * Math.min(PER_ENDPOINT, DUE_PER_ENDPOINT));
  return Math.min(limit, (endpoints / ENDPOINTS_PER_ACCOUNT) * perAccount);
}

/** `endpoints` endpoints over endpoints/10 accounts, each with 10 due and 2 leased deliveries, then fresh planner statistics. */
async function seedBacklog(runner: QueryRunner, endpoints: number): Promise<void> {
  await runner.query(
    `WITH accounts AS (
       INSERT INTO accounts (id, name, kind, status)
       SELECT gen_random_uuid(), 'Bench claim-cost account ' || g, 'customer', 'active' FROM generate_series(1, $1::int) g
       RETURNING id
     )
     INSERT INTO webhook_endpoints (id, account_id, url, events, description, secret_ciphertext)
     SELECT gen_random_uuid(), a.id, 'https://127.0.0.1:9/hooks/' || n, '{alarm.created}', 'bench claim cost', 'unused'
       FROM accounts a, generate_series(1, $2::int) n`,
    [endpoints / ENDPOINTS_PER_ACCOUNT, ENDPOINTS_PER_ACCOUNT],
  );
  await runner.query(
    // A leased delivery keeps its (past) next_attempt_at and holds a lease_until ahead, as a claim leaves it:
    // the oldest of the endpoint's, so each claim's index scan meets it first and steps over it.
    `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at, lease_until)
     SELECT gen_random_uuid(), e.account_id, e.id, gen_random_uuid(), 'alarm.created', 'event', '\\x7b7d'::bytea, 'pending',
            now() - make_interval(secs => g), CASE WHEN g > $1 THEN now() + interval '70 seconds' END
       FROM webhook_endpoints e, generate_series(1, $2::int) g
      WHERE e.description = 'bench claim cost'`,
    [DUE_PER_ENDPOINT, DUE_PER_ENDPOINT + LEASED_PER_ENDPOINT],
  );
  await runner.query('ANALYZE webhook_endpoints, webhook_deliveries');
}
