import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { DomainEventMessage } from '@app/events';
import type { AccountId } from '@app/vocabulary';
import { fanOutDeliveries, recordDeliverySuccesses, type ClaimedDelivery } from '@app/webhooks/store/webhook-deliveries.repository';
import { cpuBetween, servicesCpuSnapshot, type ServicesCpuSnapshot } from '../harness/proc-stats';
import type { ResultRow } from '../harness/report';
import { median } from '../harness/stats';
import { createAccount } from '../seed/tenant';
import type { BenchContext, Scenario } from './scenario';
import { alarmData, untilDispatchersIdle, webhookFeatureGate } from './webhook-fixture';

/** The webhooks scenario's shape: 200 events × 10 endpoints of one account per round. */
const EVENTS = 200;
const ENDPOINTS = 10;
/** Events per fan-out statement and successes per recorded batch: about what the webhooks scenario's dispatcher did (its pg_stat_statements, BENCHMARKS.md). */
const EVENTS_PER_FAN_OUT = 25;
const SUCCESSES_PER_BATCH = 20;
const TARGET = 'reported (PostgreSQL CPU per delivery of the writes a delivery must make: no claim, no HTTP, no broker)';

/**
 * The durable path's floor (issue 26): what PostgreSQL spends per delivery on the two writes a
 * delivery cannot do without, through the dispatcher's own statements: the fan-out that records
 * each (event, endpoint) pair as owed (`fanOutDeliveries`, one statement per 25 events, committed
 * durably) and the success that closes it with its attempt row and hourly statistics
 * (`recordDeliverySuccesses`, 20 a statement). Nothing claims: the ids are read back with one plain
 * SELECT between the two phases, which is not counted, and the run's dispatcher is paused meanwhile
 * (SIGSTOP once it holds no slot grant), so it neither claims these deliveries nor spends the
 * cluster's CPU. Counted as the webhooks rows count PostgreSQL: every process of the bench's own
 * cluster. The webhooks scenario's PostgreSQL CPU per delivery minus this is what the rest of its
 * path costs the database: claims, leases, the outbox and its relay.
 */
export const webhookFloor: Scenario = {
  name: 'webhooks-floor',
  target: TARGET,
  ...webhookFeatureGate(),
  // Its statements, one small round, against the current schema (test/e2e/bench-probes.e2e-spec.ts), rolled back.
  probe: async (db) => {
    const runner = db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const { accountId, endpointIds } = await floorTenant(runner.manager, 2);
      const round = await floorRound(runner.manager, accountId, endpointIds, 3, () => ({ n: 1 }));
      if (round.deliveries !== 6) throw new Error(`webhooks-floor probe: ${round.deliveries} deliveries, expected 6`);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  },
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const dispatcher = ctx.dispatcher;
    if (!dispatcher) throw new Error('no dispatcher');
    const { accountId, endpointIds } = await floorTenant(ctx.db, ENDPOINTS);
    await untilDispatchersIdle(ctx, 'webhooks-floor');
    process.kill(dispatcher.pid, 'SIGSTOP');
    const rounds: FloorRound[] = [];
    try {
      for (let r = 0; r < ctx.options.rounds; r++) {
        const round = await floorRound(ctx.db, accountId, endpointIds, EVENTS, (n) => alarmData(ctx, n));
        rounds.push(round);
        ctx.log(`  round ${r + 1}/${ctx.options.rounds}: PostgreSQL CPU-ms/delivery: fan-out ${ms(round.fanOutCpu / round.deliveries)}, recorded success ${ms(round.recordCpu / round.deliveries)}, both ${ms((round.fanOutCpu + round.recordCpu) / round.deliveries)}`);
      }
    } finally {
      process.kill(dispatcher.pid, 'SIGCONT');
    }
    const [{ pending }] = (await ctx.db.query(`SELECT count(*)::int AS pending FROM webhook_deliveries WHERE endpoint_id = ANY($1::uuid[]) AND status <> 'succeeded'`, [endpointIds])) as Array<{ pending: number }>;
    if (pending > 0) throw new Error(`webhooks-floor: ${pending} of its deliveries were not closed as succeeded`);
    const perDelivery = (pick: (round: FloorRound) => number): number => median(rounds.map((round) => pick(round) / round.deliveries));
    const row = (metric: string, value: number): ResultRow => ({
      scenario: 'webhooks-floor',
      metric,
      unit: '',
      project: null,
      baseline: null,
      ratio: null,
      target: TARGET,
      pass: null,
      status: 'info',
      cpu: { per: 'delivery', project: value, baseline: null },
      rounds: rounds.length,
      note: `${EVENTS} events × ${ENDPOINTS} endpoints per round; ${EVENTS_PER_FAN_OUT} events per fan-out statement, ${SUCCESSES_PER_BATCH} successes per recorded batch; the run's dispatcher paused`,
    });
    return [
      row("PostgreSQL CPU per delivery, the durable writes alone: fan-out + recorded success (the bench's own cluster, every process)", perDelivery((round) => round.fanOutCpu + round.recordCpu)),
      row('of which the fan-out (the pair recorded as owed, durable commit)', perDelivery((round) => round.fanOutCpu)),
      row('of which the recorded success (delivery closed, attempt row, hourly statistics)', perDelivery((round) => round.recordCpu)),
    ];
  },
};

interface FloorRound {
  deliveries: number;
  fanOutCpu: number;
  recordCpu: number;
}

/**
 * An account with `endpoints` endpoints subscribed to alarm.created. Never contacted: every
 * delivery of theirs is closed before the dispatcher runs again (the probe's are rolled back).
 */
async function floorTenant(db: DataSource | EntityManager, endpoints: number): Promise<{ accountId: AccountId; endpointIds: string[] }> {
  const accountId = await createAccount(db, 'Bench durable-path floor');
  const endpointIds = Array.from({ length: endpoints }, () => randomUUID());
  await db.query(
    `INSERT INTO webhook_endpoints (id, account_id, url, events, description, secret_ciphertext)
     SELECT id, $2, 'https://127.0.0.1:9/floor', '{alarm.created}', 'bench floor', 'unused' FROM unnest($1::uuid[]) AS id`,
    [endpointIds, accountId],
  );
  return { accountId, endpointIds };
}

/**
 * `events` events of `accountId` fanned out to its endpoints, then every delivery they queued
 * recorded as delivered; the cluster's CPU of each phase (0 where it cannot be read).
 */
async function floorRound(
  db: DataSource | EntityManager,
  accountId: AccountId,
  endpointIds: string[],
  events: number,
  data: (n: number) => Record<string, unknown>,
): Promise<FloorRound> {
  const messages: DomainEventMessage[] = [];
  for (let n = 0; n < events; n++) {
    messages.push({ account_id: accountId, envelope: { id: randomUUID(), type: 'alarm.created', created_at: new Date().toISOString(), data: data(n) } });
  }
  let queued = 0;
  const beforeFanOut = servicesCpuSnapshot();
  for (let first = 0; first < messages.length; first += EVENTS_PER_FAN_OUT) {
    queued += await fanOutDeliveries(db, messages.slice(first, first + EVENTS_PER_FAN_OUT), 'bench-floor');
  }
  const fanOutCpu = spent(beforeFanOut);
  const deliveries = (await db.query(
    `SELECT d.id, d.account_id, d.endpoint_id, d.event_id, d.event_type, d.attempts FROM webhook_deliveries d
      WHERE d.endpoint_id = ANY($1::uuid[]) AND d.status = 'pending' ORDER BY d.id`,
    [endpointIds],
  )) as Array<Pick<ClaimedDelivery, 'id' | 'account_id' | 'endpoint_id' | 'event_id' | 'event_type' | 'attempts'>>;
  if (deliveries.length !== queued || queued !== events * endpointIds.length) {
    throw new Error(`webhooks-floor: ${queued} deliveries queued and ${deliveries.length} pending for ${events} events × ${endpointIds.length} endpoints`);
  }
  const beforeRecord = servicesCpuSnapshot();
  let recorded = 0;
  for (let first = 0; first < deliveries.length; first += SUCCESSES_PER_BATCH) {
    const batch = deliveries.slice(first, first + SUCCESSES_PER_BATCH).map((delivery) => ({
      delivery: { ...delivery, body: Buffer.alloc(0), url: '', secret_ciphertext: '', signature_format: 'service-v1', previous_secret_ciphertext: null } as ClaimedDelivery,
      result: { deliveryId: randomUUID(), attemptedAt: new Date(), durationMs: 3, statusCode: 204, error: null },
    }));
    recorded += (await recordDeliverySuccesses(db, batch)).length;
  }
  const recordCpu = spent(beforeRecord);
  if (recorded !== deliveries.length) throw new Error(`webhooks-floor: ${recorded} of ${deliveries.length} successes recorded`);
  return { deliveries: recorded, fanOutCpu, recordCpu };
}

/** The cluster's CPU seconds since `before` (0 when /proc cannot be read, as in the e2e probe's sandbox). */
function spent(before: ServicesCpuSnapshot | null): number {
  const after = servicesCpuSnapshot();
  return before && after ? cpuBetween(before.postgres, after.postgres) : 0;
}

const ms = (seconds: number): string => (seconds * 1000).toFixed(3);
