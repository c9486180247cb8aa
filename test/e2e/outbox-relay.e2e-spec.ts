import { randomUUID } from 'node:crypto';
import { loadConfig } from '@app/config';
import { BrokerUnavailableError, type DomainEventMessage, eventMessageKey, writeOutboxEvent, type OutboxEventInput } from '@app/events';
import type { DataSource } from 'typeorm';
import { OutboxRelay } from '../../apps/api/src/outbox/outbox-relay';
import { createLogger } from '@app/observability';
import pino from 'pino';
import { opsAgent, startApi, type TestApi } from '../support/api';
import { tapEvents, type TapQueue } from '../support/broker';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';
import type { AccountId } from '@app/vocabulary';

const prefix = process.env.AMQP_PREFIX as string;

describe('outbox relay (api → RabbitMQ)', () => {
  let api: TestApi;
  let relay: OutboxRelay;
  let dataSource: DataSource;
  let tap: TapQueue;
  let accountId: AccountId;
  const extraRelays: OutboxRelay[] = [];

  beforeAll(async () => {
    // A long poll: whatever arrives without flush() was woken by NOTIFY.
    api = await startApi({ OUTBOX_POLL_INTERVAL_MS: '60000' });
    dataSource = dataSourceOf(api.app);
    relay = api.app.get(OutboxRelay);
    await relay.waitUntilConnected();
    tap = await tapEvents(prefix, `${prefix}.test.relay-tap`);
    accountId = await createAccount(dataSource, 'Relay Co');
  });

  // Extra relays of one test must not publish the next test's rows.
  afterEach(async () => {
    for (const extra of extraRelays.splice(0)) await extra.stop();
  });

  afterAll(async () => {
    await tap.close();
    await api.close();
  });

  const event = (overrides: Partial<OutboxEventInput> = {}): OutboxEventInput => ({
    accountId,
    type: 'alarm.created',
    aggregateType: 'alarm',
    aggregateId: 'a-1',
    data: { message: 'too warm' },
    ...overrides,
  });

  const write = (input: OutboxEventInput) => dataSource.transaction((manager) => writeOutboxEvent(manager, input));
  const bodyOf = (index: number): DomainEventMessage => JSON.parse(tap.messages[index].content.toString('utf8'));
  const received = (eventId: string) => tap.messages.filter((m) => m.properties.messageId === eventId);
  const publishedAt = async (eventId: string): Promise<Date | null> =>
    (await dataSource.query('SELECT published_at FROM outbox_events WHERE id = $1', [eventId]))[0].published_at;

  function extraRelay(amqpUrl = api.config.amqpUrl, confirmTimeoutMs?: number, logged?: string[]): OutboxRelay {
    const extra = new OutboxRelay(dataSource, {
      listenUrl: api.config.databaseDirectUrl,
      amqpUrl,
      amqpPrefix: prefix,
      pollIntervalMs: 60_000,
      batchSize: 7,
      confirmTimeoutMs,
      signingKey: eventMessageKey(api.config.secretsKey),
      // createLogger is silent under NODE_ENV=test; a test that reads the warnings collects them itself.
      logger: logged ? pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) }) : createLogger('silent', 'relay-test'),
    });
    extraRelays.push(extra);
    return extra;
  }

  it('publishes a committed row: routing key = type, persistent, messageId = event id, body {account_id, envelope}; then marks it published', async () => {
    const envelope = await write(event({ data: { id: 'alarm-1', message: 'too warm' } }));
    await relay.flush();
    const [message] = await waitFor('the message', () => received(envelope.id).length === 1 && received(envelope.id));
    expect(message.fields.exchange).toBe(`${prefix}.events`);
    expect(message.fields.routingKey).toBe('alarm.created');
    expect(message.properties).toMatchObject({ deliveryMode: 2, messageId: envelope.id, contentType: 'application/json', type: 'alarm.created' });
    expect(JSON.parse(message.content.toString('utf8'))).toEqual({ account_id: accountId, envelope });
    expect(await publishedAt(envelope.id)).toBeInstanceOf(Date);
    expect(bodyOf(tap.messages.indexOf(message)).envelope.id).toBe(envelope.id);
  });

  it('is woken by NOTIFY on commit, without a flush or a poll', async () => {
    const envelope = await write(event());
    await waitFor('the NOTIFY-driven publish', () => received(envelope.id).length === 1);
    await waitFor('published_at', async () => (await publishedAt(envelope.id)) !== null);
  });

  it('never publishes an event whose transaction rolled back', async () => {
    let eventId = '';
    await expect(
      dataSource.transaction(async (manager) => {
        eventId = (await writeOutboxEvent(manager, event())).id;
        throw new Error('change failed');
      }),
    ).rejects.toThrow('change failed');
    const marker = await write(event({ aggregateId: 'marker' }));
    await relay.flush();
    await waitFor('the marker', () => received(marker.id).length === 1);
    expect(received(eventId)).toHaveLength(0);
    expect(await dataSource.query('SELECT 1 FROM outbox_events WHERE id = $1', [eventId])).toHaveLength(0);
  });

  it('is not wedged by a malformed row written behind its back: publishes it without a timestamp, then the rows after it', async () => {
    const malformedId = randomUUID();
    await dataSource.query(
      `INSERT INTO outbox_events (id, account_id, event_type, aggregate_type, aggregate_id, envelope) VALUES ($1, $2, 'alarm.created', 'alarm', 'malformed', '{}')`,
      [malformedId, accountId],
    );
    const after = await write(event({ aggregateId: 'after-malformed' }));
    await relay.flush();
    await waitFor('the row after the malformed one', () => received(after.id).length === 1);
    const [malformed] = received(malformedId);
    expect(malformed.properties.timestamp).toBeUndefined();
    expect(await publishedAt(malformedId)).toBeInstanceOf(Date);
  });

  it('with several relays at once publishes each row once and keeps every aggregate in order', async () => {
    const [second, third] = [extraRelay(), extraRelay()];
    second.start();
    third.start();
    await Promise.all([second.waitUntilConnected(), third.waitUntilConnected()]);
    const written: Array<{ id: string; aggregate: string }> = [];
    for (let i = 0; i < 60; i++) {
      const aggregate = `order-${i % 4}`;
      const envelope = await write(event({ type: 'shipment.created', aggregateType: 'shipment', aggregateId: aggregate, data: { n: i } }));
      written.push({ id: envelope.id, aggregate });
      if (i % 9 === 0) void Promise.all([relay.flush(), second.flush(), third.flush()]).catch(() => undefined);
    }
    await Promise.all([relay.flush(), second.flush(), third.flush()]);
    await Promise.all([relay.flush(), second.flush(), third.flush()]);
    const ids = new Set(written.map((w) => w.id));
    await waitFor('all 60 events', () => tap.messages.filter((m) => ids.has(m.properties.messageId as string)).length >= 60);
    const ours = tap.messages.filter((m) => ids.has(m.properties.messageId as string)).map((m) => m.properties.messageId as string);
    expect(ours).toHaveLength(60);
    expect(new Set(ours).size).toBe(60);
    for (const aggregate of ['order-0', 'order-1', 'order-2', 'order-3']) {
      const expected = written.filter((w) => w.aggregate === aggregate).map((w) => w.id);
      expect(ours.filter((id) => expected.includes(id))).toEqual(expected);
    }
  });

  it('lets rows wait while RabbitMQ is unreachable and publishes them after it reconnects', async () => {
    const broker = new URL(api.config.amqpUrl);
    const proxy = new TcpProxy(broker.hostname, Number(broker.port || 5672));
    await proxy.up();
    const proxied = new URL(api.config.amqpUrl);
    proxied.port = String(proxy.port);
    const isolated = extraRelay(proxied.toString());
    // The api's own relay must not publish these rows for it: stop it for the duration.
    await relay.stop();
    try {
      isolated.start();
      await isolated.waitUntilConnected();
      await proxy.down();
      await waitFor('the relay to notice the outage', () => !isolated.connected);
      const waiting = [await write(event({ aggregateId: 'outage' })), await write(event({ aggregateId: 'outage' }))];
      await expect(isolated.flush()).rejects.toBeInstanceOf(BrokerUnavailableError);
      for (const envelope of waiting) expect(await publishedAt(envelope.id)).toBeNull();

      await proxy.up();
      await waitFor('reconnect', () => isolated.connected, 30_000);
      for (const envelope of waiting) {
        await waitFor('the waiting rows to be published', async () => (await publishedAt(envelope.id)) !== null);
        await waitFor('the waiting rows on the exchange', () => received(envelope.id).length === 1);
      }
      expect(tap.messages.filter((m) => waiting.some((e) => e.id === m.properties.messageId)).map((m) => m.properties.messageId)).toEqual(
        waiting.map((e) => e.id),
      );
    } finally {
      await isolated.stop();
      await proxy.down();
      relay.start();
      await relay.waitUntilConnected();
    }
  });

  it('gives up on a broker that blocks publishers within its bound, rolls back, stops promptly, and publishes once the broker takes messages again', async () => {
    const broker = new URL(api.config.amqpUrl);
    const proxy = new TcpProxy(broker.hostname, Number(broker.port || 5672));
    await proxy.up();
    const proxied = new URL(api.config.amqpUrl);
    proxied.port = String(proxy.port);
    await relay.stop();
    try {
      const logged: string[] = [];
      const blocked = extraRelay(proxied.toString(), 800, logged);
      blocked.start();
      await blocked.waitUntilConnected();
      proxy.stall(); // the broker reads nothing more: publishes are never confirmed
      const waiting = await write(event({ aggregateId: 'blocked' }));
      const started = Date.now();
      // The row's NOTIFY may wake a pass that meets the stalled broker before flush() is called:
      // flush() then follows that pass and finds the connection it dropped. Either way one pass gave
      // up on the confirms within the bound, and said so.
      const failure = await blocked.flush().then(
        () => new Error('flush() published through a broker that reads nothing'),
        (error: unknown) => error as Error,
      );
      expect(failure.message).toMatch(/confirm|not connected/);
      expect(Date.now() - started).toBeLessThan(5000); // a hang guard: the bound is 800 ms
      expect(/confirm/.test(failure.message) || logged.some((line) => line.includes('did not confirm the outbox batch in time'))).toBe(true);
      expect(await publishedAt(waiting.id)).toBeNull();
      // SIGTERM while the broker still blocks: the drain ends within the bound.
      const stopping = Date.now();
      await blocked.stop();
      expect(Date.now() - stopping).toBeLessThan(5000);
      expect(received(waiting.id)).toHaveLength(0);

      proxy.resume();
      const recovered = extraRelay(proxied.toString(), 800);
      recovered.start();
      await waitFor('the rolled-back row to be published', async () => (await publishedAt(waiting.id)) !== null, 30_000);
      await waitFor('the row on the exchange', () => received(waiting.id).length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(received(waiting.id)).toHaveLength(1);
    } finally {
      await proxy.down();
      relay.start();
      await relay.waitUntilConnected();
    }
  });

  it('publishes rows committed while no relay ran (api stopped after commit, before publish) once one starts', async () => {
    await relay.stop();
    try {
      const committed = [await write(event({ aggregateId: 'crash' })), await write(event({ aggregateId: 'crash' }))];
      for (const envelope of committed) expect(await publishedAt(envelope.id)).toBeNull();
      const replacement = extraRelay();
      replacement.start(); // no flush(): the start-up pass finds them
      for (const envelope of committed) await waitFor('the committed rows', () => received(envelope.id).length === 1);
      await replacement.stop();
    } finally {
      relay.start();
      await relay.waitUntilConnected();
    }
  });

  it('reports the broker in /health/ready and outbox gauges in /metrics (ops port)', async () => {
    const ops = await opsAgent(api);
    const ready = await ops.get('/health/ready').expect(200);
    expect(ready.body.checks).toMatchObject({ database: 'ok', broker: 'ok' });
    const metrics = await ops.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/outbox_events_published_total\{app="api"\} [1-9]/);
    expect(metrics.text).toContain('outbox_events_unpublished{app="api"}');
  });

  it('is not started with OUTBOX_RELAY=off', () => {
    expect(loadConfig({ ...process.env, OUTBOX_RELAY: 'off' }).outboxRelayEnabled).toBe(false);
    expect(loadConfig({ ...process.env, OUTBOX_RELAY: '' }).outboxRelayEnabled).toBe(true);
  });
});
