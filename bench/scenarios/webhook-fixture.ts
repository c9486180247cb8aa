import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { writeOutboxEvent, type EventEnvelope, type EventType } from '@app/events';
import { dispatcherBuilt } from '../harness/apps';
import { Receiver } from '../harness/receiver';
import { createWebhookEndpoint, type BenchEndpoint } from '../adapters/webhooks.adapter';
import type { BenchContext } from './scenario';

export const epochNow = (): number => performance.timeOrigin + performance.now();

export function webhookFeatureMissing(ctx: BenchContext, endpointsService: boolean): string | null {
  if (!dispatcherBuilt(ctx.root) || !ctx.dispatcher) return 'feature not landed: no dist/apps/dispatcher/src/main.js';
  if (!endpointsService) return 'feature landed, adapter not wired: bench/adapters/webhooks.adapter.ts';
  return null;
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

/** One domain event through the transactional outbox, as the api writes them. */
export function publishEvent(manager: EntityManager, ctx: Pick<BenchContext, 'devices' | 'tenant'>, type: EventType, n: number): Promise<EventEnvelope> {
  const data = alarmData(ctx, n);
  return writeOutboxEvent(manager, { accountId: ctx.tenant.accountId, type, aggregateType: 'alarm', aggregateId: String(data.id), data });
}
