import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { writeOutboxEvent, type EventEnvelope, type EventType } from '@app/events';
import type { AccountId } from '@app/vocabulary';
import type { SideRun } from '../harness/alternate';
import { dispatcherBuilt } from '../harness/apps';
import { Receiver } from '../harness/receiver';
import { checkLedger, LedgerMismatch } from '../harness/ledger';
import { nowMs, sleep } from '../harness/stats';
import { createWebhookEndpoint, webhookEndpointsAvailable, type BenchEndpoint } from '../adapters/webhooks.adapter';
import type { BenchContext, Scenario } from './scenario';

export const epochNow = (): number => performance.timeOrigin + performance.now();

export function webhookFeatureMissing(ctx: BenchContext, endpointsService: boolean): string | null {
  if (!dispatcherBuilt(ctx.root) || !ctx.dispatcher) return 'feature not landed: no dist/apps/dispatcher/src/main.js';
  if (!endpointsService) return 'feature landed, adapter not wired: bench/adapters/webhooks.adapter.ts';
  return null;
}

/** `prepare` and `unavailable` of a scenario that registers endpoints: it needs the dispatcher and the endpoints service built. */
export function webhookFeatureGate(): Required<Pick<Scenario, 'prepare' | 'unavailable'>> {
  let endpointsService = false;
  return {
    async prepare(ctx: BenchContext): Promise<void> {
      endpointsService = await webhookEndpointsAvailable(ctx.root);
    },
    unavailable: (ctx) => webhookFeatureMissing(ctx, endpointsService),
  };
}
/** What the webhook fixtures need of the run (the bench's context, or the soak run's). */
export type WebhookFixtureContext = Pick<BenchContext, 'root' | 'tls' | 'db' | 'config' | 'tenant' | 'devices'>;

/** A receiver with `count` servers and one endpoint per server, subscribed to `events`. */
export async function receiverWithEndpoints(ctx: WebhookFixtureContext, count: number, events: EventType[], path: string): Promise<{ receiver: Receiver; endpoints: BenchEndpoint[] }> {
  const receiver = await Receiver.start(ctx.root, ctx.tls, count);
  try {
    const endpoints: BenchEndpoint[] = [];
    for (const port of receiver.ports) {
      endpoints.push(await createWebhookEndpoint(ctx.root, ctx.db, ctx.config.secretsKey, ctx.tenant.accountId, `https://127.0.0.1:${port}${path}`, events));
    }
    return { receiver, endpoints };
  } catch (error) {
    await receiver.process.stop();
    throw error;
  }
}

/** An alarm-shaped payload, about the size of a real alarm record. */
export function alarmData(ctx: Pick<BenchContext, 'devices'>, n: number): Record<string, unknown> {
  return {
    id: randomUUID(),
    device_id: ctx.devices[1].deviceId,
    shipment_id: null,
    type: 'TEMPERATURE',
    severity: 'WARNING',
    source: 'THRESHOLD',
    message: `Temperature 9.${n % 10} °C above the maximum 8 °C for 15 minutes`,
    resolved: false,
    created_at: new Date().toISOString(),
    resolved_at: null,
  };
}

/** One domain event through the transactional outbox, as the api writes them (the bench tenant's unless `accountId`). */
export function publishEvent(
  manager: EntityManager,
  ctx: Pick<BenchContext, 'devices' | 'tenant'>,
  type: EventType,
  n: number,
  accountId: AccountId = ctx.tenant.accountId,
): Promise<EventEnvelope> {
  const data = alarmData(ctx, n);
  return writeOutboxEvent(manager, { accountId, type, aggregateType: 'alarm', aggregateId: String(data.id), data });
}

const EVENTS_PER_TRANSACTION = 250;
const DELIVERY_TIMEOUT_MS = 300_000;

/**
 * One measured round of the durable pipeline: `events` alarm.created events committed through
 * the outbox (250 per transaction; event n belongs to `accountOf(n)`), relayed by the api and
 * delivered by the dispatcher, until the receiver has counted `expected` requests. The figure is
 * deliveries/s; the CPU is the dispatcher's plus the api's (its outbox relay).
 */
export async function deliverRound(
  ctx: BenchContext,
  receiver: Receiver,
  events: number,
  expected: number,
  accountOf: (n: number) => AccountId = () => ctx.tenant.accountId,
  label = 'webhooks',
): Promise<SideRun> {
  const dispatcher = ctx.dispatcher;
  if (!dispatcher) throw new Error('no dispatcher');
  await receiver.reset();
  const dispatcherCpu = dispatcher.cpuSeconds();
  const apiCpu = ctx.api.process.cpuSeconds();
  const start = nowMs();
  for (let first = 0; first < events; first += EVENTS_PER_TRANSACTION) {
    await ctx.db.transaction(async (manager) => {
      for (let n = first; n < Math.min(events, first + EVENTS_PER_TRANSACTION); n++) await publishEvent(manager, ctx, 'alarm.created', n, accountOf(n));
    });
  }
  let received = 0;
  for (; received < expected; received = await receiver.count()) {
    if (nowMs() - start > DELIVERY_TIMEOUT_MS) throw new Error(`${label}: ${received} of ${expected} deliveries after ${DELIVERY_TIMEOUT_MS} ms`);
    dispatcher.assertRunning();
    await sleep(50);
  }
  const ms = nowMs() - start;
  // Each (event, endpoint) once in the steady state: more requests than deliveries are duplicates.
  if (received > expected) throw new Error(`${label}: the receiver counted ${received} requests for ${expected} deliveries`);
  const dispatcherSpent = dispatcher.cpuSeconds() - dispatcherCpu;
  const apiSpent = ctx.api.process.cpuSeconds() - apiCpu;
  return { value: expected / (ms / 1000), cpuSeconds: dispatcherSpent + apiSpent, units: expected, extra: { dispatcherCpu: dispatcherSpent, apiCpu: apiSpent } };
}

/**
 * The run's account of these endpoints' deliveries (bench/harness/ledger.ts), from the database and
 * the receiver's log: throws, listing the differences, when it does not balance.
 */
export async function checkDeliveryLedger(ctx: Pick<BenchContext, 'db' | 'log'>, receiver: Receiver, endpoints: ReadonlyArray<{ id: string; url: string }>, label: string): Promise<void> {
  // Outcomes of the last deliveries are recorded in batches just after the receiver answered them.
  const deadline = nowMs() + LEDGER_SETTLE_MS;
  for (;;) {
    try {
      ctx.log(await checkLedger(ctx.db, endpoints, await receiver.ledger(), label));
      return;
    } catch (error) {
      if (!(error instanceof LedgerMismatch) || nowMs() > deadline) throw error;
      await sleep(250);
    }
  }
}

/** How long the ledger may take to settle (outcome batches being written) before a difference fails the run. */
const LEDGER_SETTLE_MS = 10_000;

/** Slot grants held by every dispatcher together. */
export const GRANTS_HELD = 'SELECT count(*)::int AS n FROM webhook_slot_grants';
const IDLE_TIMEOUT_MS = 30_000;

/**
 * Waits until no dispatcher holds a slot grant (each gives them up at its first claim with nothing
 * in hand): then one can be paused (SIGSTOP) without holding slots the others count against theirs.
 */
export async function untilDispatchersIdle(ctx: Pick<BenchContext, 'db'>, scenario: string): Promise<void> {
  const deadline = nowMs() + IDLE_TIMEOUT_MS;
  for (;;) {
    const [{ n }] = (await ctx.db.query(GRANTS_HELD)) as Array<{ n: number }>;
    if (n === 0) return;
    if (nowMs() > deadline) throw new Error(`${scenario}: ${n} slot grants still held after ${IDLE_TIMEOUT_MS} ms`);
    await sleep(100);
  }
}
