import { createDataSource, DEFAULT_DATABASE_TIMEOUTS } from '@app/database';
import type { ResultRow } from '../harness/report';
import { nowMs, percentile, sleep } from '../harness/stats';
import type { BenchContext, Scenario } from './scenario';
import { checkDeliveryLedger, epochNow, publishEvent, receiverWithEndpoints, webhookFeatureGate } from './webhook-fixture';

const RATE_PER_SECOND = 100;
const ARRIVAL_TIMEOUT_MS = 30_000;
/**
 * The publisher's own pool: the load is open-loop (a commit starts every 10 ms whether the last
 * one has finished or not), so on a busy disk with durable commits (the bench's own cluster:
 * synchronous_commit and fsync on) tens of transactions are open at once. On the bench's shared
 * 16-connection pool with its 5 s checkout bound they queued past it ("timeout exceeded when
 * trying to connect") and failed the run. Commits are what the scenario waits for, never the pool.
 */
const PUBLISHER_POOL = 64;
const PUBLISHER_CHECKOUT_MS = 120_000;

/**
 * Commit → receipt: events committed through the outbox at a steady 100/s, each delivered to
 * one loopback HTTPS endpoint; latency from the end of the committing transaction to the
 * receiver having read the request (both clocks: this machine's).
 */
export const eventLatency: Scenario = {
  name: 'event-latency',
  target: 'p50 ≤ 50 ms, p99 ≤ 250 ms',
  ...webhookFeatureGate(),
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    // Its own event type, so that the webhooks scenario's endpoints do not receive these.
    const { receiver, endpoints } = await receiverWithEndpoints(ctx, 1, ['alarm.resolved'], '/latency');
    try {
      await receiver.reset();
      const total = RATE_PER_SECOND * ctx.options.eventLatencySeconds;
      const committed = new Map<string, number>();
      const commitMs: number[] = [];
      const inFlight: Array<Promise<void>> = [];
      const publisher = createDataSource(ctx.databaseUrl, PUBLISHER_POOL, { ...DEFAULT_DATABASE_TIMEOUTS, connectionTimeoutMs: PUBLISHER_CHECKOUT_MS });
      await publisher.initialize();
      const start = nowMs();
      try {
        for (let n = 0; n < total; n++) {
          const due = start + (n * 1000) / RATE_PER_SECOND;
          const wait = due - nowMs();
          if (wait > 0) await sleep(wait);
          const began = nowMs();
          inFlight.push(
            publisher
              .transaction((manager) => publishEvent(manager, ctx, 'alarm.resolved', n))
              .then((envelope) => {
                committed.set(envelope.id, epochNow());
                commitMs.push(nowMs() - began);
              }),
          );
        }
        await Promise.all(inFlight);
      } finally {
        await publisher.destroy();
      }
      let receipts = await receiver.receipts();
      const deadline = nowMs() + ARRIVAL_TIMEOUT_MS;
      while (receipts.size < total && nowMs() < deadline) {
        await sleep(100);
        receipts = await receiver.receipts();
      }
      if (receipts.size < total) throw new Error(`event-latency: ${receipts.size} of ${total} events arrived within ${ARRIVAL_TIMEOUT_MS} ms after the last commit`);
      await checkDeliveryLedger(ctx, receiver, endpoints, 'event-latency');
      const latencies = [...committed].map(([id, at]) => (receipts.get(id) ?? Number.NaN) - at);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      const base = { scenario: 'event-latency', unit: 'ms', baseline: null, ratio: null, status: 'measured' as const, rounds: 1, note: `${total} events at ${RATE_PER_SECOND}/s; the committing transaction itself (pool wait included) p50 ${percentile(commitMs, 50).toFixed(1)} ms, p99 ${percentile(commitMs, 99).toFixed(1)} ms` };
      return [
        { ...base, metric: 'commit → receipt p50', project: p50, target: 'p50 ≤ 50 ms', pass: p50 <= 50 },
        { ...base, metric: 'commit → receipt p99', project: p99, target: 'p99 ≤ 250 ms', pass: p99 <= 250 },
      ];
    } finally {
      await receiver.process.stop();
    }
  },
};
