import type { AccountId } from '@app/vocabulary';
import { WEBHOOK_DELIVERIES_CHANNEL } from '@app/webhooks';
import { createWebhookEndpoint, type BenchEndpoint } from '../adapters/webhooks.adapter';
import { startDispatcher } from '../harness/apps';
import { receiverKey } from '../harness/ledger';
import { Receiver } from '../harness/receiver';
import type { ResultRow } from '../harness/report';
import type { ServerProcess } from '../harness/server-process';
import { median, nowMs, sleep } from '../harness/stats';
import { createAccount } from '../seed/tenant';
import type { BenchContext, Scenario } from './scenario';
import { checkDeliveryLedger, GRANTS_HELD, publishEvent, untilDispatchersIdle, webhookFeatureGate } from './webhook-fixture';

/** Above the default cap of endpoints per account (20): an operator's WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT for a large tenant. */
const ENDPOINTS = 100;
/** The receiver answers after this long: throughput is bound by concurrency, not CPU. */
const ANSWER_AFTER_MS = 50;
/** Per dispatcher process; the account bound (fleet-wide) is set above two of them so that it does not bind. */
const CONCURRENCY = 8;
const PER_ENDPOINT = 4;
const PER_ACCOUNT = 64;
const TARGET_RATIO = 1.8;
const TARGET = `2 dispatchers ≥ ${TARGET_RATIO} × 1 dispatcher (deliveries/s), per-endpoint bound never exceeded`;
const ROUND_TIMEOUT_MS = 120_000;

/**
 * One tenant served by every dispatcher (issue 26, item 3): one account with 100 endpoints on a
 * receiver answering after 50 ms; its deliveries per second with one dispatcher process and with
 * two (WEBHOOK_CONCURRENCY 8 each), and the most requests the receiver saw in flight at once per
 * endpoint (the bound is WEBHOOK_CONCURRENCY_PER_ENDPOINT, 4, for both processes together).
 *
 * What is timed is the dispatchers' part (claim, signed request, recorded outcome): each round's
 * events are written to the outbox already marked published and fanned out in the same
 * transaction, so no dispatcher's consumer is involved and the run's own dispatcher can be paused
 * (SIGSTOP, once it holds no slot grant) while the scenario's two serve. The ledger still balances
 * outbox events against deliveries and the receiver's log.
 */
export const webhookDispatchers: Scenario = {
  name: 'dispatchers-one-tenant',
  target: TARGET,
  ...webhookFeatureGate(),
  // Its own statements against the current schema (test/e2e/bench-probes.e2e-spec.ts), in a rolled-back transaction.
  probe: async (db) => {
    const runner = db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(FAN_OUT, [[]]);
      await runner.query(GRANTS_HELD);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  },
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const main = ctx.dispatcher;
    if (!main) throw new Error('no dispatcher');
    const receiver = await Receiver.start(ctx.root, ctx.tls, ENDPOINTS, ANSWER_AFTER_MS);
    const env = {
      ...ctx.appEnv,
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(PER_ENDPOINT),
      WEBHOOK_CONCURRENCY_PER_ACCOUNT: String(PER_ACCOUNT),
    };
    const started: ServerProcess[] = [];
    let paused = false;
    try {
      const accountId = await createAccount(ctx.db, 'Bench one tenant, many dispatchers');
      const endpoints: BenchEndpoint[] = [];
      for (const port of receiver.ports) {
        endpoints.push(await createWebhookEndpoint(ctx.root, ctx.db, ctx.config.secretsKey, accountId, `https://127.0.0.1:${port}/one-tenant`, ['alarm.created'], ENDPOINTS));
      }
      const events = ctx.options.quick ? 10 : 20;
      const expected = events * ENDPOINTS;

      await untilDispatchersIdle(ctx, 'dispatchers-one-tenant');
      process.kill(main.pid, 'SIGSTOP');
      paused = true;
      const [first, second] = await Promise.all([startDispatcher(ctx.root, env, ctx.api), startDispatcher(ctx.root, env, ctx.api)]);
      started.push(first, second);

      const round = async (processes: ServerProcess[], label: string): Promise<{ rate: number; peak: number }> => {
        await untilDispatchersIdle(ctx, 'dispatchers-one-tenant');
        // The one not in this round is paused: it holds no grant and claims nothing meanwhile.
        const idle = started.filter((p) => !processes.includes(p));
        for (const p of idle) process.kill(p.pid, 'SIGSTOP');
        try {
          await receiver.reset();
          const start = nowMs();
          await enqueue(ctx, accountId, events);
          for (let received = 0; received < expected; received = await receiver.count()) {
            if (nowMs() - start > ROUND_TIMEOUT_MS) throw new Error(`${label}: ${received} of ${expected} deliveries after ${ROUND_TIMEOUT_MS} ms`);
            for (const p of processes) p.assertRunning();
            await sleep(20);
          }
          const rate = expected / ((nowMs() - start) / 1000);
          const peaks = await receiver.peaks();
          const peak = Math.max(...endpoints.map((e) => peaks.get(receiverKey(e.url)) ?? 0));
          ctx.log(`  ${label}: ${rate.toFixed(0)} deliveries/s; most requests in flight at one endpoint: ${peak}`);
          return { rate, peak };
        } finally {
          for (const p of idle) process.kill(p.pid, 'SIGCONT');
        }
      };

      const one: number[] = [];
      const two: number[] = [];
      let peak = 0;
      for (let r = 0; r < ctx.options.rounds; r++) {
        const a = await round([first], `round ${r + 1}/${ctx.options.rounds} 1 dispatcher `);
        const b = await round([first, second], `round ${r + 1}/${ctx.options.rounds} 2 dispatchers`);
        one.push(a.rate);
        two.push(b.rate);
        peak = Math.max(peak, a.peak, b.peak);
      }
      await checkDeliveryLedger(ctx, receiver, endpoints, 'dispatchers-one-tenant');
      const ratio = median(two) / median(one);
      const withinBound = peak <= PER_ENDPOINT;
      return [
        {
          scenario: 'dispatchers-one-tenant',
          metric: `one account, ${ENDPOINTS} endpoints, receiver answering after ${ANSWER_AFTER_MS} ms: deliveries/s, 2 dispatchers vs 1`,
          unit: 'deliveries/s',
          project: median(two),
          baseline: median(one),
          ratio,
          target: TARGET,
          pass: ratio >= TARGET_RATIO && withinBound,
          status: 'measured',
          rounds: ctx.options.rounds,
          note: `baseline = 1 dispatcher; WEBHOOK_CONCURRENCY ${CONCURRENCY} per process, _PER_ENDPOINT ${PER_ENDPOINT}, _PER_ACCOUNT ${PER_ACCOUNT} (fleet-wide); ${expected} deliveries per round; most requests in flight at one endpoint: ${peak} (bound ${PER_ENDPOINT})`,
        },
      ];
    } finally {
      for (const p of started) await p.stop();
      if (paused) process.kill(main.pid, 'SIGCONT');
      await receiver.process.stop();
    }
  },
};

/**
 * `events` alarm.created events of `accountId`, committed to the outbox as already published and
 * fanned out to every endpoint of the account in the same transaction, then a NOTIFY wakes the
 * delivery workers: the dispatchers' consumers take no part.
 */
async function enqueue(ctx: BenchContext, accountId: AccountId, events: number): Promise<void> {
  await ctx.db.transaction(async (manager) => {
    const ids: string[] = [];
    for (let n = 0; n < events; n++) ids.push((await publishEvent(manager, ctx, 'alarm.created', n, accountId)).id);
    await manager.query('UPDATE outbox_events SET published_at = now() WHERE id = ANY($1::uuid[])', [ids]);
    await manager.query(FAN_OUT, [ids]);
    await manager.query(`SELECT pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '')`);
  });
}

/** The dispatcher's fan-out of these outbox events ($1), as one statement. */
const FAN_OUT = `
  INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
  SELECT gen_random_uuid(), o.account_id, e.id, o.id, o.event_type, 'event', convert_to(o.envelope::text, 'UTF8'), 'pending', now()
    FROM outbox_events o JOIN webhook_endpoints e ON e.account_id = o.account_id AND e.enabled AND o.event_type = ANY(e.events)
   WHERE o.id = ANY($1::uuid[])`;
