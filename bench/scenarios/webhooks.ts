import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { alternate, cpuPerUnit, medianOf, type SideRun } from '../harness/alternate';
import type { ResultRow } from '../harness/report';
import { runJson } from '../harness/run-json';
import { servicesCpuRow, withServicesCpu } from '../harness/services-cpu';
import type { BenchContext, Scenario } from './scenario';
import { alarmData, deliverRound, receiverWithEndpoints, webhookFeatureGate } from './webhook-fixture';

const TARGET = '≥ 1,000 deliveries/s and ratio ≥ 0.7';
const ENDPOINTS = 10;
/** The dispatcher's default WEBHOOK_CONCURRENCY_PER_ENDPOINT; the baseline uses the same. */
const PER_ENDPOINT = 4;

/**
 * Events committed through the outbox → relay → RabbitMQ → dispatcher → signed HTTPS POSTs to 10
 * loopback endpoints answering 204, until every delivery arrived; against a bare loop of the
 * same signed POSTs with the same per-endpoint concurrency over keep-alive connections.
 */
export const webhooks: Scenario = {
  name: 'webhooks',
  target: TARGET,
  ...webhookFeatureGate(),
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
          endpoints: endpoints.map((e) => ({ url: e.url, secret: e.secret })),
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
      const runs = await alternate(
        ctx.options.rounds,
        () => project(events),
        () => baseline(events),
        ctx.log,
        (r) => `${r.value.toFixed(0)} deliveries/s, ${((r.cpuSeconds / r.units) * 1000).toFixed(2)} CPU-ms/delivery`,
      );
      const p = medianOf(runs.project);
      const b = medianOf(runs.baseline);
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
        ...[servicesCpuRow('webhooks', 'delivery', runs)].filter((row): row is ResultRow => row !== null),
      ];
    } finally {
      await receiver.process.stop();
    }
  },
};
