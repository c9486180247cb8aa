import { connect, type Channel } from 'amqplib';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { newId } from '@app/database';
import { EVENT_SIGNATURE_HEADER, eventMessageKey, eventTopology, signEventMessage, writeOutboxEvent, type EventEnvelope, type EventType } from '@app/events';
import { createLogger } from '@app/observability';
import type { WebhookEndpointsService } from '@app/webhooks';
import { WEBHOOK_DELIVERY_QUERIES } from '../../libs/webhooks/src/store/webhook-deliveries.queries';
import type { OutboxRelay } from '../../apps/api/src/outbox/outbox-relay';
import { EventConsumer } from '../../apps/dispatcher/src/consumer/event-consumer';
import { AttemptRecorder } from '../../apps/dispatcher/src/delivery/attempt-recorder';
import { DeliveryStore } from '../../apps/dispatcher/src/delivery/delivery-store';
import { DeliveryWorker } from '../../apps/dispatcher/src/delivery/delivery-worker';
import type { AttemptResult, WebhookSender } from '../../apps/dispatcher/src/delivery/webhook-sender';
import { AMQP_URL } from '../support/broker';
import { createAccount } from '../support/fixtures';
import { spyOnStatement } from '../support/statement-spy';
import type { HttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait';
import { PER_ENDPOINT, WebhookDispatcherHarness } from './support/webhook-dispatcher-harness';

const prefix = process.env.AMQP_PREFIX as string;

/** Takes dead letters off the queue until those with these message ids have come; their headers by message id. */
async function deadLetters(channel: Channel, queue: string, messageIds: string[]): Promise<Map<string, Record<string, unknown>>> {
  const dead = new Map<string, Record<string, unknown>>();
  await waitFor(`${messageIds.join(', ')} in the dead-letter queue`, async () => {
    for (;;) {
      const message = await channel.get(queue, { noAck: true });
      if (!message) break;
      dead.set(String(message.properties.messageId), message.properties.headers ?? {});
    }
    return messageIds.every((id) => dead.has(id));
  });
  return dead;
}

describe('webhook dispatcher: concurrency, restarts and broker faults', () => {
  const harness = new WebhookDispatcherHarness();
  const { startDispatcher, stopDispatcher, endpoint, publish, deliveries, attempts, settled } = harness;
  let receiver: HttpsReceiver;
  let relay: OutboxRelay;
  let dataSource: DataSource;
  let service: WebhookEndpointsService;
  let config: AppConfig;

  beforeAll(async () => {
    await harness.setUp();
    ({ receiver, relay, dataSource, service, config } = harness);
  });

  // A test that stopped or replaced the dispatcher and failed midway must not fail the next ones too.
  afterEach(() => harness.restoreDispatcher());

  afterAll(() => harness.tearDown());

  it('bounds attempts in flight per endpoint, so a slow receiver does not hold back the others', async () => {
    const accountId = await createAccount(dataSource, 'Busy Co');
    receiver.script('/busy/slow', [], { status: 200, before: () => new Promise((resolve) => setTimeout(resolve, 150)) });
    const slow = await endpoint('/busy/slow', ['shipment.created'], accountId);
    const fast = await endpoint('/busy/fast', ['shipment.created'], accountId);
    const events = [];
    for (let i = 0; i < 8; i++) events.push(await publish(accountId, 'shipment.created', { n: i }));
    for (const e of events) {
      await settled(fast.id, e.id);
      await settled(slow.id, e.id);
    }
    expect(receiver.received('/busy/slow')).toHaveLength(8);
    expect(receiver.received('/busy/fast')).toHaveLength(8);
    expect(receiver.maxConcurrent('/busy/slow')).toBeLessThanOrEqual(PER_ENDPOINT);
  });

  it('finishes attempts in flight when stopped, and a new instance completes pending retries and queued events (restart safety)', async () => {
    receiver.script('/restart', [{ status: 503, headers: { 'Retry-After': '3600' } }, { status: 200, before: () => new Promise((r) => setTimeout(r, 300)) }]);
    const hook = await endpoint('/restart');
    const first = await publish(hook.account_id);
    const pending = await waitFor('the first failed attempt', async () => (await deliveries(hook.id)).find((d) => d.attempts === 1 && d.status === 'pending'));
    expect(pending.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);

    await stopDispatcher();
    // While no dispatcher runs: an event waits in the durable queue, the retry in PostgreSQL.
    const second = await publish(hook.account_id);
    expect((await deliveries(hook.id)).map((d) => d.event_id)).toEqual([first.id]);
    await dataSource.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [pending.id]); // the hour has passed

    await startDispatcher();
    // Stop again while the retry is in the receiver's hands: close() waits for it and records it.
    await waitFor('the retry to reach the receiver', () => receiver.received('/restart').filter((r) => r.headers['x-service-event-id'] === first.id).length >= 2);
    await stopDispatcher();
    const [retried] = (await deliveries(hook.id)).filter((d) => d.id === pending.id);
    expect(retried).toMatchObject({ status: 'succeeded', attempts: 2 });

    await startDispatcher();
    expect((await settled(hook.id, second.id)).status).toBe('succeeded');
    const received = receiver.received('/restart');
    expect(received.filter((r) => r.headers['x-service-event-id'] === first.id)).toHaveLength(2);
    expect(received.filter((r) => r.headers['x-service-event-id'] === second.id)).toHaveLength(1);
  });

  it('claims ahead of its slots, sends within the per-endpoint bound, and hands unsent claims back (due now) when stopped', async () => {
    let inFlight = 0;
    let peak = 0;
    // The receiver holds every request until the test opens the gate: what is in flight, held and
    // handed back depends on the test's steps, not on how fast a loaded machine runs them.
    let openGate = (): void => undefined;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    receiver.script('/ahead', [], {
      status: 200,
      before: async () => {
        peak = Math.max(peak, ++inFlight);
        await gate;
        inFlight--;
      },
    });
    const hook = await endpoint('/ahead');
    const events = [];
    for (let n = 0; n < 6; n++) events.push(await publish(hook.account_id));
    await waitFor('every delivery to exist', async () => (await deliveries(hook.id)).length === events.length);
    // PER_ENDPOINT in flight and as many held: four leased, two sent.
    await waitFor('the first attempts to reach the receiver', () => inFlight >= PER_ENDPOINT);
    const leasedAhead = async (): Promise<number> =>
      (await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' AND lease_until > now() + interval '10 seconds'`, [hook.id]))[0].n;
    await waitFor('the claim ahead', async () => (await leasedAhead()) === 2 * PER_ENDPOINT || undefined);
    // Stopping hands the held claims back at once, then waits for the attempts in flight.
    const stopping = stopDispatcher();
    await waitFor('the held claims to be handed back', async () => (await leasedAhead()) === PER_ENDPOINT || undefined);
    openGate();
    await stopping;
    expect(receiver.received('/ahead')).toHaveLength(PER_ENDPOINT);
    expect(peak).toBe(PER_ENDPOINT);
    const rows = await deliveries(hook.id);
    expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(PER_ENDPOINT);
    const handedBack = rows.filter((d) => d.status === 'pending');
    expect(handedBack).toHaveLength(events.length - PER_ENDPOINT);
    expect(handedBack.every((d) => d.attempts === 0 && d.next_attempt_at!.getTime() <= Date.now() && d.lease_until === null)).toBe(true);

    await startDispatcher();
    for (const event of events) expect((await settled(hook.id, event.id)).status).toBe('succeeded');
    expect(peak).toBe(PER_ENDPOINT);
    expect(receiver.received('/ahead')).toHaveLength(events.length);
  });

  it('hands a deferred delivery back without an attempt: no attempt logged, no failure counted, due again shortly', async () => {
    await stopDispatcher(); // afterEach starts a fresh one
    const hook = await endpoint('/deferred');
    const queued = await service.sendTestEvent(hook.account_id, hook.id);
    let calls = 0;
    const stub = {
      send: async (): Promise<AttemptResult> => {
        calls += 1;
        return { deliveryId: newId(), attemptedAt: new Date(), durationMs: 0, statusCode: null, error: 'waited too long for a local connection slot', outcome: 'deferred', retryAfterSeconds: null };
      },
    } as unknown as WebhookSender;
    const logger = createLogger('silent', 'deferred-test');
    const store = new DeliveryStore(dataSource);
    const recorder = new AttemptRecorder(store, { maxBatch: 500, pruneEvery: 100, pruneIntervalMs: 60_000, logger });
    const worker = new DeliveryWorker(store, recorder, stub, {
      listenUrl: config.databaseDirectUrl,
      secretsKey: config.secretsKey,
      retryScheduleSeconds: config.webhookRetryScheduleSeconds,
      timeoutMs: 1000,
      concurrency: 4,
      perEndpoint: 2,
      perAccount: 2,
      pollIntervalMs: 100,
      logger,
    });
    worker.start();
    try {
      await waitFor('the delivery to be deferred twice', () => calls >= 2);
    } finally {
      await worker.stop();
    }
    const [row] = (await deliveries(hook.id)).filter((d) => d.id === queued.webhook_delivery_id);
    expect(row).toMatchObject({ status: 'pending', attempts: 0, last_error: null });
    expect(await attempts(row.id)).toEqual([]);
    expect((await service.get(hook.account_id, hook.id)).consecutive_failures).toBe(0);
  });

  it('reconnects to RabbitMQ after losing its connection and keeps consuming', async () => {
    const consumer = harness.dispatcher.get(EventConsumer);
    await consumer.waitUntilConnected();
    await consumer.broker.current?.close(); // as if the broker had restarted
    const hook = await endpoint('/reconnect');
    const envelope = await publish(hook.account_id); // queued meanwhile: the queue is durable
    await waitFor('the consumer to reconnect', () => consumer.connected, 30_000);
    expect((await settled(hook.id, envelope.id)).status).toBe('succeeded');
  });

  it('stores the events that arrive together with one fan-out, acknowledges them all, and dead-letters garbage among them', async () => {
    const { exchange, dispatcherQueue, deadLetterQueue } = eventTopology(prefix);
    const hook = await endpoint('/together');
    const other = await endpoint('/together-other', ['alarm.created'], hook.account_id);
    const fanOut = spyOnStatement(harness.dispatcher.get(DeliveryStore).db, WEBHOOK_DELIVERY_QUERIES.fanOutDeliveries);
    const connection = await connect(AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      const envelopes = await dataSource.transaction(async (manager) => {
        const written: EventEnvelope[] = [];
        for (let n = 0; n < 30; n++) {
          written.push(await writeOutboxEvent(manager, { accountId: hook.account_id, type: 'alarm.created', aggregateType: 'alarm', aggregateId: `together-${n}`, data: { n } }));
        }
        return written;
      });
      channel.publish(exchange, 'alarm.created', Buffer.from('{"not":"an event either"}'), { persistent: true, messageId: 'garbage-2' });
      await relay.flush();
      for (const envelope of envelopes) {
        expect((await settled(hook.id, envelope.id)).status).toBe('succeeded');
        expect((await settled(other.id, envelope.id)).status).toBe('succeeded');
      }
      // $2 of the fan-out: the ids of the batch's events.
      const batches = fanOut.calls.map(([, eventIds]) => (eventIds as string[]).filter((id) => envelopes.some((x) => x.id === id)).length).filter((n) => n > 0);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(envelopes.length);
      expect(batches.length).toBeLessThan(envelopes.length);
      const dead = await waitFor('the dead letter', async () => (await channel.get(deadLetterQueue, { noAck: true })) || undefined);
      expect(dead.properties.messageId).toBe('garbage-2');
      // Unacknowledged messages would return to the queue when the consumer goes away.
      await stopDispatcher();
      expect((await channel.checkQueue(dispatcherQueue)).messageCount).toBe(0);
      await channel.close();
    } finally {
      fanOut.restore();
      await connection.close();
    }
  });

  it('does not take tenancy from the broker: a forged event for a real account is not delivered and is dead-lettered with its reason', async () => {
    const { exchange, deadLetterQueue } = eventTopology(prefix);
    const hook = await endpoint('/forged');
    const forged = (id: string) => ({
      account_id: hook.account_id,
      envelope: { id, type: 'alarm.created', created_at: new Date().toISOString(), data: { message: 'forged' } },
    });
    const unsignedId = newId();
    const badlySignedId = newId();
    const connection = await connect(AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      channel.publish(exchange, 'alarm.created', Buffer.from(JSON.stringify(forged(unsignedId))), { persistent: true, messageId: unsignedId });
      channel.publish(exchange, 'alarm.created', Buffer.from(JSON.stringify(forged(badlySignedId))), {
        persistent: true,
        messageId: badlySignedId,
        headers: { [EVENT_SIGNATURE_HEADER]: `v1=${'0'.repeat(64)}` },
      });
      await channel.waitForConfirms();
      const genuine = await publish(hook.account_id); // queued behind the forged ones
      expect((await settled(hook.id, genuine.id)).status).toBe('succeeded');

      const rows = await deliveries(hook.id);
      expect(rows.map((d) => d.event_id)).toEqual([genuine.id]);
      expect(receiver.received('/forged')).toHaveLength(1);
      const dead = await deadLetters(channel, deadLetterQueue, [unsignedId, badlySignedId]);
      for (const id of [unsignedId, badlySignedId]) {
        expect(dead.get(id)).toMatchObject({ 'x-rejection-reason': expect.stringMatching(/^unauthenticated_event/), 'x-original-routing-key': 'alarm.created' });
      }
      await channel.close();
    } finally {
      await connection.close();
    }
  });

  it('verifies every message on its own: a replay then a forgery in one batch, another account, an altered body or type, an oversized message are dead-lettered with their reason; the genuine event is delivered once', async () => {
    const { exchange, deadLetterQueue } = eventTopology(prefix);
    const types: EventType[] = ['alarm.created', 'shipment.created'];
    const a = await endpoint('/verify/a', types);
    const b1 = await endpoint('/verify/b1', types);
    const b2 = await endpoint('/verify/b2', types, b1.account_id);
    const genuine = await publish(a.account_id, 'alarm.created', { message: 'too warm' });
    expect((await settled(a.id, genuine.id)).status).toBe('succeeded');
    // The exact bytes the relay published (as it builds them from the committed row) and their signature.
    const [row] = await dataSource.query('SELECT account_id, envelope FROM outbox_events WHERE id = $1', [genuine.id]);
    const original = { account_id: row.account_id as string, envelope: row.envelope as EventEnvelope };
    const bytes = (message: unknown): Buffer => Buffer.from(JSON.stringify(message));
    const signature = signEventMessage(eventMessageKey(config.secretsKey), bytes(original));
    const signedBy = (header: string) => ({ headers: { [EVENT_SIGNATURE_HEADER]: header } });
    const padding = 'x'.repeat(config.eventsMaxMessageBytes);
    const oversized = bytes({ ...original, envelope: { ...original.envelope, data: { ...original.envelope.data, padding } } });
    const attacks: Array<{ label: string; body: Buffer; headers?: Record<string, string>; reason: RegExp }> = [
      // The reported attack: an exact unsigned copy of an event A received, then right behind it the same id naming tenant B.
      { label: 'replay', body: bytes(original), reason: /^unauthenticated_event: unsigned/ },
      {
        label: 'forgery',
        body: bytes({ account_id: b1.account_id, envelope: { ...original.envelope, data: { message: 'forged' } } }),
        reason: /^unauthenticated_event: unsigned/,
      },
      // The genuine signature on altered bytes.
      { label: 'other-account', body: bytes({ ...original, account_id: b1.account_id }), ...signedBy(signature), reason: /^unauthenticated_event: signature mismatch/ },
      {
        label: 'altered-body',
        body: bytes({ ...original, envelope: { ...original.envelope, data: { message: 'forged' } } }),
        ...signedBy(signature),
        reason: /^unauthenticated_event: signature mismatch/,
      },
      {
        label: 'altered-type',
        body: bytes({ ...original, envelope: { ...original.envelope, type: 'shipment.created' } }),
        ...signedBy(signature),
        reason: /^unauthenticated_event: signature mismatch/,
      },
      // Correctly signed, but too large to be read at all: refused before it is parsed.
      {
        label: 'oversized',
        body: oversized,
        ...signedBy(signEventMessage(eventMessageKey(config.secretsKey), oversized)),
        reason: new RegExp(`^message_too_large: ${oversized.length} bytes, at most ${config.eventsMaxMessageBytes} \\(EVENTS_MAX_MESSAGE_BYTES\\)$`),
      },
    ];
    const connection = await connect(AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      // Published while no dispatcher consumes, so that the consumer receives them together (one batch).
      await stopDispatcher();
      for (const attack of attacks) {
        channel.publish(exchange, 'alarm.created', attack.body, { persistent: true, messageId: `verify-${attack.label}`, headers: attack.headers });
      }
      await channel.waitForConfirms();
      const after = await dataSource.transaction((manager) =>
        writeOutboxEvent(manager, { accountId: a.account_id, type: 'alarm.created', aggregateType: 'alarm', aggregateId: 'verify', data: { n: 2 } }),
      );
      await relay.flush();
      await startDispatcher();
      expect((await settled(a.id, after.id)).status).toBe('succeeded');

      const dead = await deadLetters(channel, deadLetterQueue, attacks.map((attack) => `verify-${attack.label}`));
      for (const attack of attacks) {
        expect({ label: attack.label, reason: dead.get(`verify-${attack.label}`)?.['x-rejection-reason'] }).toEqual({ label: attack.label, reason: expect.stringMatching(attack.reason) });
      }
      // Nothing delivered to B; A got the genuine event once and nothing else.
      expect(receiver.received('/verify/b1')).toEqual([]);
      expect(receiver.received('/verify/b2')).toEqual([]);
      expect(await deliveries(b1.id)).toEqual([]);
      expect(await deliveries(b2.id)).toEqual([]);
      expect((await deliveries(a.id)).map((d) => d.event_id)).toEqual([genuine.id, after.id]);
      const received = receiver.received('/verify/a');
      expect(received.map((r) => r.headers['x-service-event-id'])).toEqual([genuine.id, after.id]);
      expect(JSON.parse(received[0].rawBody.toString())).toEqual(original.envelope);
      await channel.close();
    } finally {
      await connection.close();
    }
  });

  it('dead-letters a message that is not an event instead of dropping it', async () => {
    const { exchange, deadLetterQueue } = eventTopology(prefix);
    const connection = await connect(AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      channel.publish(exchange, 'alarm.created', Buffer.from('{"not":"an event"}'), { persistent: true, messageId: 'garbage-1' });
      await channel.waitForConfirms();
      // Skips what an earlier test may have left in the dead-letter queue (a failed test above).
      const dead = await waitFor('the dead letter', async () => {
        const message = await channel.get(deadLetterQueue, { noAck: true });
        return message && message.properties.messageId === 'garbage-1' ? message : undefined;
      });
      expect(dead.properties.messageId).toBe('garbage-1');
      await channel.close();
    } finally {
      await connection.close();
    }
  });
});
