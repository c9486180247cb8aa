import type { ResultRow } from '../harness/report';
import { nowMs, percentile, sleep } from '../harness/stats';
import type { BenchContext, Scenario } from './scenario';
import { epochNow, publishEvent, receiverWithEndpoints, webhookFeatureGate } from './webhook-fixture';

const RATE_PER_SECOND = 100;
const ARRIVAL_TIMEOUT_MS = 30_000;

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
    const { receiver } = await receiverWithEndpoints(ctx, 1, ['alarm.resolved'], '/latency');
    try {
      await receiver.reset();
      const total = RATE_PER_SECOND * ctx.options.eventLatencySeconds;
      const committed = new Map<string, number>();
      const inFlight: Array<Promise<void>> = [];
      const start = nowMs();
      for (let n = 0; n < total; n++) {
        const due = start + (n * 1000) / RATE_PER_SECOND;
        const wait = due - nowMs();
        if (wait > 0) await sleep(wait);
        inFlight.push(
          ctx.db
            .transaction((manager) => publishEvent(manager, ctx, 'alarm.resolved', n))
            .then((envelope) => {
              committed.set(envelope.id, epochNow());
            }),
        );
      }
      await Promise.all(inFlight);
      let receipts = await receiver.receipts();
      const deadline = nowMs() + ARRIVAL_TIMEOUT_MS;
      while (receipts.size < total && nowMs() < deadline) {
        await sleep(100);
        receipts = await receiver.receipts();
      }
      if (receipts.size < total) throw new Error(`event-latency: ${receipts.size} of ${total} events arrived within ${ARRIVAL_TIMEOUT_MS} ms after the last commit`);
      const latencies = [...committed].map(([id, at]) => (receipts.get(id) ?? Number.NaN) - at);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      const base = { scenario: 'event-latency', unit: 'ms', baseline: null, ratio: null, status: 'measured' as const, rounds: 1, note: `${total} events at ${RATE_PER_SECOND}/s` };
      return [
        { ...base, metric: 'commit → receipt p50', project: p50, target: 'p50 ≤ 50 ms', pass: p50 <= 50 },
        { ...base, metric: 'commit → receipt p99', project: p99, target: 'p99 ≤ 250 ms', pass: p99 <= 250 },
      ];
    } finally {
      await receiver.process.stop();
    }
  },
};
