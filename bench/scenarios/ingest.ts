import { join } from 'node:path';
import { connect, type ConfirmChannel } from 'amqplib';
import type { DataSource } from 'typeorm';
import { ingestTopology } from '@app/domain';
import { alternate, cpuPerUnit, medianOf, type SideRun } from '../harness/alternate';
import { planPoints, type GatewayPoint, type PointPlan } from '../harness/points';
import type { ResultRow } from '../harness/report';
import { runJson } from '../harness/run-json';
import { servicesCpuRow, withServicesCpu } from '../harness/services-cpu';
import { nowMs, sleep } from '../harness/stats';
import type { BenchContext, Scenario } from './scenario';

const TARGET = '≥ 150,000 points/s and ratio ≥ 0.8 × COPY';
const DEVICES = 100;
/** A gateway's batch: one message carries this many points. */
export const POINTS_PER_MESSAGE = 100;
/** Rows per COPY (one staging table load + INSERT … ON CONFLICT DO NOTHING per transaction) of the baseline. */
const COPY_BATCH_SIZE = 10_000;
const STORE_TIMEOUT_MS = 300_000;

export function messages(plan: PointPlan): Buffer[] {
  const out: Buffer[] = [];
  let chunk: GatewayPoint[] = [];
  for (const point of planPoints(plan)) {
    chunk.push(point);
    if (chunk.length === POINTS_PER_MESSAGE) {
      out.push(Buffer.from(JSON.stringify({ points: chunk })));
      chunk = [];
    }
  }
  if (chunk.length > 0) out.push(Buffer.from(JSON.stringify({ points: chunk })));
  return out;
}

export async function publishAll(channel: ConfirmChannel, exchange: string, bodies: Buffer[]): Promise<void> {
  for (let i = 0; i < bodies.length; i++) {
    const ok = channel.publish(exchange, 'bench.gateway', bodies[i], { persistent: true, contentType: 'application/json', messageId: `bench-${i}` });
    if (!ok) await new Promise((resolve) => channel.once('drain', resolve));
    if (i % 256 === 255) await channel.waitForConfirms();
  }
  await channel.waitForConfirms();
}

/**
 * Whether every device's last point of the round is stored: a few index probes, cheap enough to
 * poll every 20 ms without charging the project's PostgreSQL CPU with the harness's own counting
 * (a full count over the window, polled, cost as much as the ingestion itself). The last message
 * carries the last minute of every device; the full count is still checked once this says so.
 */
export async function lastPointsStored(db: DataSource, plan: PointPlan): Promise<boolean> {
  const rows = (await db.query(`SELECT count(*)::int AS n FROM telemetry_points WHERE device_id = ANY($1::uuid[]) AND recorded_at = $2`, [
    plan.deviceIds,
    new Date(plan.fromMs + (plan.perDevice - 1) * 60_000).toISOString(),
  ])) as Array<{ n: number }>;
  return rows[0].n === plan.deviceIds.length;
}

export async function storedCount(db: DataSource, plan: PointPlan): Promise<number> {
  const rows = (await db.query(
    `SELECT count(*)::int AS n FROM telemetry_points WHERE device_id = ANY($1::uuid[]) AND recorded_at >= $2 AND recorded_at < $3`,
    [plan.deviceIds, new Date(plan.fromMs).toISOString(), new Date(plan.fromMs + plan.perDevice * 60_000).toISOString()],
  )) as Array<{ n: number }>;
  return rows[0].n;
}

/**
 * Points through the RabbitMQ ingestion adapter (the api's queue consumer → TelemetryIngestService)
 * until stored, against the same points inserted directly. Each round writes a fresh window.
 */
export const ingest: Scenario = {
  name: 'ingest',
  target: TARGET,
  unavailable: () => null,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const devices = ctx.devices.slice(1, 1 + DEVICES);
    const total = ctx.options.ingestPoints;
    const perDevice = Math.ceil(total / devices.length);
    const points = perDevice * devices.length;
    const base = ctx.ingestWindowStart.getTime();
    let window = 0;
    const nextPlan = (scale = 1): PointPlan => {
      const plan = { deviceIds: devices.map((d) => d.deviceId), fromMs: base + window * perDevice * 60_000, perDevice: Math.ceil(perDevice * scale) };
      window++;
      return plan;
    };
    const topology = ingestTopology(ctx.config.amqpPrefix);
    const connection = await connect(ctx.options.amqpUrl);
    try {
      const channel = await connection.createConfirmChannel();

      const project = withServicesCpu(async (plan: PointPlan): Promise<SideRun> => {
        const expected = plan.perDevice * plan.deviceIds.length;
        const bodies = messages(plan);
        const cpu = ctx.api.process.cpuSeconds();
        const start = nowMs();
        await publishAll(channel, topology.exchange, bodies);
        for (let queued = Infinity; queued > 0; queued = (await channel.checkQueue(topology.queue)).messageCount) await sleep(20);
        for (let stored = 0; stored < expected; stored = (await lastPointsStored(ctx.db, plan)) ? await storedCount(ctx.db, plan) : 0) {
          if (nowMs() - start > STORE_TIMEOUT_MS) {
            const dead = (await channel.checkQueue(topology.deadLetterQueue)).messageCount;
            throw new Error(`ingest: ${stored} of ${expected} points stored after ${STORE_TIMEOUT_MS} ms (${dead} dead-lettered messages)`);
          }
          ctx.api.process.assertRunning();
          await sleep(20);
        }
        const ms = nowMs() - start;
        return { value: expected / (ms / 1000), cpuSeconds: ctx.api.process.cpuSeconds() - cpu, units: expected };
      });

      const baseline = withServicesCpu(async (plan: PointPlan): Promise<SideRun> => {
        const expected = plan.perDevice * plan.deviceIds.length;
        const job = {
          databaseUrl: ctx.databaseUrl,
          deviceIds: plan.deviceIds,
          lifecycleIds: devices.map((d) => d.lifecycleId),
          fromMs: plan.fromMs,
          perDevice: plan.perDevice,
          batchSize: COPY_BATCH_SIZE,
        };
        const result = await runJson<{ ms: number; cpuSeconds: number; inserted: number }>(join(ctx.root, 'dist/bench/baseline/ingest.js'), job);
        if (result.inserted !== expected) throw new Error(`baseline ingest inserted ${result.inserted} of ${expected}`);
        return { value: expected / (result.ms / 1000), cpuSeconds: result.cpuSeconds, units: expected };
      });

      await project(nextPlan(0.1));
      await baseline(nextPlan(0.1));
      const runs = await alternate(
        ctx.options.rounds,
        () => project(nextPlan()),
        () => baseline(nextPlan()),
        ctx.log,
        (r) => `${r.value.toFixed(0)} points/s, ${((r.cpuSeconds / r.units) * 1e6).toFixed(1)} CPU-µs/point`,
      );
      await channel.close();

      const p = medianOf(runs.project);
      const b = medianOf(runs.baseline);
      return [
        {
          scenario: 'ingest',
          metric: `${points.toLocaleString('en-US')} points (${POINTS_PER_MESSAGE}/message, ${DEVICES} devices) until stored`,
          unit: 'points/s',
          project: p,
          baseline: b,
          ratio: p / b,
          target: TARGET,
          pass: p >= 150_000 && p / b >= 0.8,
          status: 'measured',
          cpu: { per: 'point', project: cpuPerUnit(runs.project), baseline: cpuPerUnit(runs.baseline) },
          rounds: ctx.options.rounds,
          samples: { project: runs.project.map((r) => r.value), baseline: runs.baseline.map((r) => r.value) },
        },
        ...[servicesCpuRow('ingest', 'point', runs)].filter((row): row is ResultRow => row !== null),
      ];
    } finally {
      await connection.close();
    }
  },
};
