import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { connect } from 'amqplib';
import { createServer } from 'node:net';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { type AppConfig, loadConfig } from '@app/config';
import { newId } from '@app/database';
import { EVENT_SIGNATURE_HEADER, eventTopology, writeOutboxEvent, type EventEnvelope, type EventType } from '@app/events';
import { verifyWebhookRequest, WebhookEndpointsService, type CreatedWebhookEndpoint } from '@app/webhooks';
import { OutboxRelay } from '../../apps/api/src/outbox/outbox-relay';
import { EventConsumer } from '../../apps/dispatcher/src/consumer/event-consumer';
import { createDispatcherApp } from '../../apps/dispatcher/src/dispatcher-app';
import { AttemptRecorder } from '../../apps/dispatcher/src/delivery/attempt-recorder';
import { DeliveryStore, type ClaimedDelivery } from '../../apps/dispatcher/src/delivery/delivery-store';
import { DeliveryWorker } from '../../apps/dispatcher/src/delivery/delivery-worker';
import { WebhookSender, type AttemptResult } from '../../apps/dispatcher/src/delivery/webhook-sender';
import { createLogger } from '@app/observability';
import { startApi, type TestApi } from '../support/api';
import { AMQP_URL } from '../support/broker';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { generateTestCertificate, HttpsReceiver, type ReceivedWebhook, type TestCertificate } from '../support/https-receiver';
import { waitFor } from '../support/wait';

const prefix = process.env.AMQP_PREFIX as string;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PER_ENDPOINT = 2;

interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  event_id: string;
  origin: string;
  body: Buffer;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
}

interface AttemptRow {
  id: string;
  attempt_number: number;
  outcome: string;
  status_code: number | null;
  error: string | null;
  attempted_at: Date;
  duration_ms: number;
}

describe('webhook dispatcher (outbox → RabbitMQ → dispatcher → HTTPS receiver)', () => {
  let certificate: TestCertificate;
  let receiver: HttpsReceiver;
  let api: TestApi;
  let relay: OutboxRelay;
  let dataSource: DataSource;
  let service: WebhookEndpointsService;
  let config: AppConfig;
  let dispatcher: INestApplication;
  /** The config overrides of the running dispatcher; null while none runs. */
  let running: Partial<AppConfig> | null = null;

  async function startDispatcher(overrides: Partial<AppConfig> = {}): Promise<void> {
    dispatcher = await createDispatcherApp({ ...config, ...overrides }, createLogger('silent', 'dispatcher-test'), { ca: certificate.cert });
    running = overrides;
  }

  async function stopDispatcher(): Promise<void> {
    running = null;
    await dispatcher.close();
  }

  beforeAll(async () => {
    certificate = generateTestCertificate();
    receiver = await HttpsReceiver.start(certificate);
    api = await startApi({ OUTBOX_POLL_INTERVAL_MS: '200' });
    relay = api.app.get(OutboxRelay);
    await relay.waitUntilConnected();
    dataSource = dataSourceOf(api.app);
    config = loadConfig({
      ...process.env,
      WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0',
      // Generous, so that a slow answer on a loaded machine never turns into a timeout and an extra
      // attempt; the timeout test runs a dispatcher of its own with a short one.
      WEBHOOK_TIMEOUT_MS: '10000',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(PER_ENDPOINT),
    });
    service = new WebhookEndpointsService(dataSource, { secretsKey: config.secretsKey, allowPrivateTargets: true });
    await startDispatcher();
  });

  // A test that stopped or replaced the dispatcher and failed midway must not fail the next ones too.
  afterEach(async () => {
    if (running !== null && Object.keys(running).length === 0) return;
    if (running !== null) await stopDispatcher();
    await startDispatcher();
  });

  afterAll(async () => {
    if (running !== null) await stopDispatcher();
    await api?.close();
    await receiver?.close();
  });

  async function endpoint(path: string, events: EventType[] = ['alarm.created'], accountId?: string): Promise<CreatedWebhookEndpoint & { path: string }> {
    const account = accountId ?? (await createAccount(dataSource, `Receiver ${path}`));
    const created = await service.create(account, { url: receiver.url(path), events });
    return { ...created, path };
  }

  async function publish(accountId: string, type: EventType = 'alarm.created', data: Record<string, unknown> = { message: 'too warm' }): Promise<EventEnvelope> {
    const envelope = await dataSource.transaction((manager) => writeOutboxEvent(manager, { accountId, type, aggregateType: type.split('.')[0], aggregateId: 'agg', data }));
    await relay.flush();
    return envelope;
  }

  const deliveries = async (endpointId: string): Promise<DeliveryRow[]> =>
    dataSource.query('SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id', [endpointId]);

  const attempts = async (deliveryId: string): Promise<AttemptRow[]> =>
    dataSource.query('SELECT * FROM webhook_attempts WHERE webhook_delivery_id = $1 ORDER BY attempt_number', [deliveryId]);

  async function settled(endpointId: string, eventId: string, timeoutMs?: number): Promise<DeliveryRow> {
    return waitFor(
      `delivery of ${eventId} to close`,
      async () => (await deliveries(endpointId)).find((d) => d.event_id === eventId && d.status !== 'pending'),
      timeoutMs,
    );
  }

  const verifies = (received: ReceivedWebhook, secret: string) => verifyWebhookRequest(received.headers, received.rawBody, [secret]) !== null;

  it('delivers an outbox event signed, with every header of spec §6.3, and logs the attempt', async () => {
    const hook = await endpoint('/pipeline');
    const envelope = await publish(hook.account_id, 'alarm.created', { id: 'alarm-1', severity: 'WARNING' });
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, origin: 'event', last_status_code: 200 });

    const [received] = receiver.received('/pipeline');
    expect(received.method).toBe('POST');
    expect(received.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(received.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(received.headers['x-service-event']).toBe('alarm.created');
    expect(received.headers['x-service-event-id']).toBe(envelope.id);
    expect(received.headers['x-service-delivery-id']).toMatch(UUID);
    expect(received.headers['x-service-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Date.now() / 1000 - Number(received.headers['x-service-timestamp']))).toBeLessThanOrEqual(300);
    expect(received.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifyWebhookRequest(received.headers, received.rawBody, [hook.signing_secret])).toEqual({
      eventId: envelope.id,
      eventType: 'alarm.created',
      deliveryId: received.headers['x-service-delivery-id'],
    });
    expect(verifyWebhookRequest(received.headers, Buffer.concat([received.rawBody, Buffer.from(' ')]), [hook.signing_secret])).toBeNull();
    const body = JSON.parse(received.rawBody.toString('utf8'));
    expect(body).toEqual(envelope);
    expect(body.id).toBe(received.headers['x-service-event-id']);
    expect(received.rawBody.equals(delivery.body)).toBe(true);

    const [attempt] = await attempts(delivery.id);
    expect(attempt).toMatchObject({ id: received.headers['x-service-delivery-id'], attempt_number: 1, outcome: 'succeeded', status_code: 200, error: null });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    const listed = await service.listAttempts(hook.account_id, hook.id);
    expect(listed[0]).toMatchObject({ delivery_id: attempt.id, event_id: envelope.id, event_type: 'alarm.created', status_code: 200, outcome: 'succeeded' });
  });

  it('sends each event only to the enabled endpoints of its account subscribed to its type', async () => {
    const accountId = await createAccount(dataSource, 'Filtering Co');
    const subscribed = await endpoint('/filter/subscribed', ['alarm.created', 'shipment.created'], accountId);
    const otherType = await endpoint('/filter/other-type', ['shipment.completed'], accountId);
    const disabled = await endpoint('/filter/disabled', ['alarm.created'], accountId);
    await service.disable(accountId, disabled.id);
    const otherTenant = await endpoint('/filter/other-tenant', ['alarm.created']);

    const envelope = await publish(accountId, 'alarm.created');
    await settled(subscribed.id, envelope.id);
    // The fan-out of one message is one statement: every delivery it makes exists by now.
    for (const hook of [otherType, disabled, otherTenant]) expect(await deliveries(hook.id)).toEqual([]);
    const shipment = await publish(accountId, 'shipment.created', { id: 5 });
    await settled(subscribed.id, shipment.id);
    expect(receiver.received('/filter/subscribed').map((r) => r.headers['x-service-event'])).toEqual(['alarm.created', 'shipment.created']);
    for (const path of ['/filter/other-type', '/filter/disabled', '/filter/other-tenant']) expect(receiver.received(path)).toEqual([]);
  });

  it('retries 500 and 503, then succeeds: same event id and raw body, a new delivery id and signature each time', async () => {
    receiver.script('/retry', [{ status: 500 }, { status: 503 }]);
    const hook = await endpoint('/retry');
    const envelope = await publish(hook.account_id);
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3 });

    const received = receiver.received('/retry');
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([envelope.id]));
    expect(new Set(received.map((r) => r.headers['x-service-delivery-id'])).size).toBe(3);
    for (const r of received) {
      expect(r.rawBody.equals(received[0].rawBody)).toBe(true);
      expect(verifies(r, hook.signing_secret)).toBe(true);
    }
    const log = await attempts(delivery.id);
    expect(log.map((a) => [a.outcome, a.status_code])).toEqual([['retry', 500], ['retry', 503], ['succeeded', 200]]);
    expect(log.map((a) => a.id)).toEqual(received.map((r) => r.headers['x-service-delivery-id']));
    const [row] = await dataSource.query('SELECT consecutive_failures FROM webhook_endpoints WHERE id = $1', [hook.id]);
    expect(row.consecutive_failures).toBe(0);
  });

  it('retries a 429 no sooner than its Retry-After', async () => {
    receiver.script('/throttled', [{ status: 429, headers: { 'Retry-After': '1' } }]);
    const hook = await endpoint('/throttled');
    const envelope = await publish(hook.account_id);
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery.status).toBe('succeeded');
    const [first, second] = await attempts(delivery.id);
    expect([first.outcome, first.status_code, second.outcome]).toEqual(['retry', 429, 'succeeded']);
    // The schedule is all zeros: only Retry-After can have put the retry a second later.
    expect(second.attempted_at.getTime() - first.attempted_at.getTime()).toBeGreaterThanOrEqual(1000);
  });

  it('retries a timeout (no response within WEBHOOK_TIMEOUT_MS)', async () => {
    await stopDispatcher();
    await startDispatcher({ webhookTimeoutMs: 500 });
    receiver.script('/slow', [{ status: 200, hang: true }]);
    const hook = await endpoint('/slow');
    const envelope = await publish(hook.account_id);
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery.status).toBe('succeeded');
    const log = await attempts(delivery.id);
    expect(log[0]).toMatchObject({ outcome: 'retry', status_code: null, error: 'timeout after 500 ms' });
    expect(log[1]).toMatchObject({ outcome: 'succeeded', status_code: 200 });
  });

  it('retries connection errors and gives up after 6 retries (7 attempts)', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const accountId = await createAccount(dataSource, 'Refused Co');
    const hook = await service.create(accountId, { url: `https://127.0.0.1:${closedPort}/gone`, events: ['alarm.created'] });
    const envelope = await publish(accountId);
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 7, last_status_code: null });
    const log = await attempts(delivery.id);
    expect(log.map((a) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry', 'retry', 'failed']);
    for (const a of log) expect(a.error).toContain('ECONNREFUSED');
  });

  it('gives up on a receiver that keeps answering 500 after 6 retries', async () => {
    receiver.script('/always-500', [], { status: 500 });
    const hook = await endpoint('/always-500');
    const envelope = await publish(hook.account_id);
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 7, last_status_code: 500 });
    expect(receiver.received('/always-500')).toHaveLength(7);
    expect((await attempts(delivery.id)).map((a) => a.outcome)).toEqual([...Array(6).fill('retry'), 'failed']);
    expect((await service.get(hook.account_id, hook.id)).consecutive_failures).toBe(7);
  });

  it.each([
    [400, null],
    [404, null],
    [410, null],
    [302, 'redirect not followed (HTTP 302)'],
  ])('does not retry HTTP %i (permanent failure)', async (status, error) => {
    const path = `/permanent-${status}`;
    receiver.script(path, [], { status, headers: { Location: receiver.url('/elsewhere') } });
    const hook = await endpoint(path);
    const envelope = await publish(hook.account_id);
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: status });
    expect(await attempts(delivery.id)).toEqual([expect.objectContaining({ outcome: 'failed', status_code: status, error })]);
    expect(receiver.received(path)).toHaveLength(1);
    expect(receiver.received('/elsewhere')).toHaveLength(0);
  });

  it('disables an endpoint at exactly 20 consecutive failed attempts and cancels its pending deliveries', async () => {
    receiver.script('/disable-20', [], { status: 500 });
    const hook = await endpoint('/disable-20');
    // A delivery waiting for a later retry, and 17 failures already counted.
    const later = await dataSource.query(
      `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
       VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'alarm.created', 'resend', '\\x7b7d', 'pending', now() + interval '1 hour') RETURNING id`,
      [hook.account_id, hook.id],
    );
    await dataSource.query('UPDATE webhook_endpoints SET consecutive_failures = 17 WHERE id = $1', [hook.id]);

    const envelope = await publish(hook.account_id);
    const delivery = await settled(hook.id, envelope.id);
    expect(delivery).toMatchObject({ status: 'cancelled', attempts: 3 });
    expect(receiver.received('/disable-20')).toHaveLength(3);
    const endpointNow = await service.get(hook.account_id, hook.id);
    expect(endpointNow).toMatchObject({ status: 'disabled', consecutive_failures: 20 });
    expect(endpointNow.disabled_reason).toBe('disabled automatically after 20 consecutive failed attempts (last: HTTP 500)');
    expect(endpointNow.disabled_at).not.toBeNull();
    const [waiting] = await dataSource.query('SELECT status, next_attempt_at FROM webhook_deliveries WHERE id = $1', [later[0].id]);
    expect(waiting).toEqual({ status: 'cancelled', next_attempt_at: null });

    // Disabled: new events make no deliveries.
    const ignored = await publish(hook.account_id);
    const marker = await endpoint('/disable-20-marker', ['alarm.created'], hook.account_id);
    const next = await publish(hook.account_id);
    await settled(marker.id, next.id);
    expect((await deliveries(hook.id)).map((d) => d.event_id)).not.toContain(ignored.id);

    // Re-enabled after the receiver is fixed: the count restarts and events flow again.
    receiver.script('/disable-20', [], { status: 200 });
    expect(await service.enable(hook.account_id, hook.id)).toMatchObject({ status: 'enabled', consecutive_failures: 0, disabled_reason: null });
    const again = await publish(hook.account_id);
    expect((await settled(hook.id, again.id)).status).toBe('succeeded');
  });

  it('counts failures across deliveries: 20 in a row disable the endpoint; a success resets the count', async () => {
    receiver.script('/flaky', [{ status: 500 }], { status: 500 });
    const hook = await endpoint('/flaky');
    receiver.script('/flaky', [{ status: 500 }, { status: 200 }], { status: 500 });
    const first = await publish(hook.account_id);
    expect((await settled(hook.id, first.id)).status).toBe('succeeded');
    expect((await service.get(hook.account_id, hook.id)).consecutive_failures).toBe(0);

    const events = [await publish(hook.account_id), await publish(hook.account_id), await publish(hook.account_id)];
    await waitFor('the endpoint to be disabled', async () => (await service.get(hook.account_id, hook.id)).status === 'disabled');
    await waitFor('no pending deliveries', async () => (await deliveries(hook.id)).every((d) => d.status !== 'pending'));
    const failedAttempts = (await dataSource.query(`SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1 AND outcome <> 'succeeded'`, [hook.id]))[0].n;
    // Exactly 20 unless an attempt was already in flight (at most PER_ENDPOINT - 1 of them).
    expect(failedAttempts - 1).toBeGreaterThanOrEqual(20);
    expect(failedAttempts - 1).toBeLessThanOrEqual(20 + PER_ENDPOINT - 1);
    expect((await deliveries(hook.id)).filter((d) => events.some((e) => e.id === d.event_id)).map((d) => d.status)).toContain('cancelled');
  });

  it('signs with the current secret: a rotation between two attempts applies to the retry', async () => {
    const hook = await endpoint('/rotation');
    let rotated = '';
    receiver.script('/rotation', [
      {
        status: 500,
        before: async () => {
          rotated = (await service.rotateSecret(hook.account_id, hook.id)).signing_secret;
        },
      },
    ]);
    const envelope = await publish(hook.account_id);
    expect((await settled(hook.id, envelope.id)).status).toBe('succeeded');
    const [before, after] = receiver.received('/rotation');
    expect(verifies(before, hook.signing_secret)).toBe(true);
    expect(verifies(after, hook.signing_secret)).toBe(false);
    expect(verifies(after, rotated)).toBe(true);
    // A receiver in the middle of a rotation accepts both secrets.
    expect(verifyWebhookRequest(after.headers, after.rawBody, [hook.signing_secret, rotated])).not.toBeNull();
    expect(after.rawBody.equals(before.rawBody)).toBe(true);
  });

  it('delivers a test event and a hand resend (same event id and bytes, new delivery id)', async () => {
    const hook = await endpoint('/manual');
    const envelope = await publish(hook.account_id);
    const original = await settled(hook.id, envelope.id);

    const resent = await service.resend(hook.account_id, hook.id, envelope.id);
    await waitFor('the resend', async () => (await deliveries(hook.id)).find((d) => d.id === resent.webhook_delivery_id && d.status === 'succeeded'));
    const test = await service.sendTestEvent(hook.account_id, hook.id);
    await waitFor('the test event', async () => (await deliveries(hook.id)).find((d) => d.id === test.webhook_delivery_id && d.status === 'succeeded'));

    const [first, again, probe] = receiver.received('/manual');
    expect(again.headers['x-service-event-id']).toBe(envelope.id);
    expect(again.rawBody.equals(first.rawBody)).toBe(true);
    expect(again.rawBody.equals(original.body)).toBe(true);
    expect(again.headers['x-service-delivery-id']).not.toBe(first.headers['x-service-delivery-id']);
    expect(verifies(again, hook.signing_secret)).toBe(true);
    expect(probe.headers['x-service-event']).toBe('webhook.test');
    expect(JSON.parse(probe.rawBody.toString('utf8'))).toMatchObject({ id: test.event_id, type: 'webhook.test', data: { endpoint_id: hook.id } });
    expect(verifies(probe, hook.signing_secret)).toBe(true);
  });

  it('shows the last 100 attempts per endpoint, newest first, and trims the log to them', async () => {
    const hook = await endpoint('/log');
    const envelope = await publish(hook.account_id);
    const delivery = await settled(hook.id, envelope.id);
    await dataSource.query(
      `INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number, attempted_at, outcome, status_code, duration_ms)
       SELECT gen_random_uuid(), $1, $2, $3, $4, 'alarm.created', 1, now() - make_interval(mins => n), 'succeeded', 200, 5 FROM generate_series(1, 120) AS n`,
      [hook.account_id, hook.id, delivery.id, envelope.id],
    );
    const latest = await publish(hook.account_id);
    await settled(hook.id, latest.id);
    // Readers see at most 100 even before the trim, which runs per 100 attempts of an endpoint and on a timer.
    const visible = await service.listAttempts(hook.account_id, hook.id);
    expect(visible).toHaveLength(100);
    expect(visible[0].event_id).toBe(latest.id);
    expect(visible[1].event_id).toBe(envelope.id);
    await dispatcher.get(AttemptRecorder).pruneAll();
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [hook.id]);
    expect(n).toBe(100);
    expect((await service.listAttempts(hook.account_id, hook.id)).map((a) => a.delivery_id)).toEqual(visible.map((a) => a.delivery_id));
  });

  describe('attempt recorder (batched successes, trimming)', () => {
    const logger = createLogger('silent', 'recorder-test');

    /** Deliveries leased for an hour, so that the running dispatcher leaves them to the test. */
    async function leased(hook: CreatedWebhookEndpoint, count: number): Promise<ClaimedDelivery[]> {
      const rows: Array<Omit<ClaimedDelivery, 'url' | 'secret_ciphertext'>> = await dataSource.query(
        `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
         SELECT gen_random_uuid(), $1, $2, gen_random_uuid(), 'alarm.created', 'test', '\\x7b7d'::bytea, 'pending', now() + interval '1 hour'
           FROM generate_series(1, $3)
         RETURNING id, account_id, endpoint_id, event_id, event_type, body, attempts`,
        [hook.account_id, hook.id, count],
      );
      return rows.map((row) => ({ ...row, url: hook.url, secret_ciphertext: '' }));
    }

    const success = (): AttemptResult => ({
      deliveryId: newId(),
      attemptedAt: new Date(),
      durationMs: 3,
      statusCode: 204,
      error: null,
      outcome: 'succeeded',
      retryAfterSeconds: null,
    });

    it('writes the successes that finish together in one statement, resets the failure count, and flushes on stop', async () => {
      const hook = await endpoint('/recorder-batch');
      await dataSource.query('UPDATE webhook_endpoints SET consecutive_failures = 7 WHERE id = $1', [hook.id]);
      const store = dispatcher.get(DeliveryStore);
      const statements = jest.spyOn(store, 'recordSuccesses');
      const recorder = new AttemptRecorder(store, { maxBatch: 500, pruneEvery: 100, pruneIntervalMs: 60_000, logger });
      recorder.start();
      const claimed = await leased(hook, 5);
      const results = claimed.map(() => success());
      const recorded = claimed.map((delivery, i) => recorder.recordSuccess(delivery, results[i]));
      expect(recorder.backlog).toBe(5);
      // stop() before anything was written: it writes what is pending.
      await recorder.stop();
      await Promise.all(recorded);
      expect(statements).toHaveBeenCalledTimes(1);
      statements.mockRestore();
      expect(recorder.backlog).toBe(0);

      const rows: DeliveryRow[] = await dataSource.query('SELECT * FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id', [claimed.map((d) => d.id)]);
      expect(rows.map((d) => [d.status, d.attempts, d.next_attempt_at, d.last_status_code])).toEqual(claimed.map(() => ['succeeded', 1, null, 204]));
      const logged: AttemptRow[] = await dataSource.query('SELECT * FROM webhook_attempts WHERE webhook_delivery_id = ANY($1)', [claimed.map((d) => d.id)]);
      expect(logged.map((a) => a.id).sort()).toEqual(results.map((r) => r.deliveryId).sort());
      expect(logged.every((a) => a.attempt_number === 1 && a.outcome === 'succeeded' && a.status_code === 204)).toBe(true);
      const [{ consecutive_failures }] = await dataSource.query('SELECT consecutive_failures FROM webhook_endpoints WHERE id = $1', [hook.id]);
      expect(consecutive_failures).toBe(0);
    });

    it('does not close a delivery that is no longer the attempt it recorded (cancelled or recorded meanwhile)', async () => {
      const hook = await endpoint('/recorder-stale');
      const store = dispatcher.get(DeliveryStore);
      const [cancelled, recordedTwice] = await leased(hook, 2);
      await dataSource.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE id = $1`, [cancelled.id]);
      expect(await store.recordSuccesses([{ delivery: recordedTwice, result: success() }])).toEqual([recordedTwice.id]);
      expect(await store.recordSuccesses([{ delivery: cancelled, result: success() }, { delivery: recordedTwice, result: success() }])).toEqual([]);
      const rows: DeliveryRow[] = await dataSource.query('SELECT * FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id', [[cancelled.id, recordedTwice.id]]);
      expect(Object.fromEntries(rows.map((d) => [d.id, [d.status, d.attempts]]))).toEqual({ [cancelled.id]: ['cancelled', 0], [recordedTwice.id]: ['succeeded', 1] });
    });

    it('trims an endpoint to its newest 100 attempts once pruneEvery of its attempts were recorded, not on each', async () => {
      const hook = await endpoint('/recorder-trim');
      const other = await endpoint('/recorder-trim-other', ['alarm.created'], hook.account_id);
      const store = dispatcher.get(DeliveryStore);
      const [old] = await leased(hook, 1);
      for (const target of [hook, other]) {
        await dataSource.query(
          `INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number, attempted_at, outcome, status_code, duration_ms)
           SELECT gen_random_uuid(), $1, $2, $3, $4, 'alarm.created', 1, now() - make_interval(mins => n), 'succeeded', 200, 5 FROM generate_series(1, 120) AS n`,
          [hook.account_id, target.id, old.id, old.event_id],
        );
      }
      const count = async (endpointId: string): Promise<number> =>
        (await dataSource.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [endpointId]))[0].n;
      const recorder = new AttemptRecorder(store, { maxBatch: 500, pruneEvery: 3, pruneIntervalMs: 60_000, logger });
      const [a, b, c] = await leased(hook, 3);
      await recorder.recordSuccess(a, success());
      await recorder.recordSuccess(b, success());
      expect(await count(hook.id)).toBe(122); // below the threshold: untouched
      const newest = success();
      await recorder.recordSuccess(c, newest);
      await recorder.flush();
      expect(await count(hook.id)).toBe(100);
      expect(await count(other.id)).toBe(120); // not written by this recorder: not its job
      const visible = await service.listAttempts(hook.account_id, hook.id);
      expect(visible[0].delivery_id).toBe(newest.deliveryId);
      expect(visible.map((v) => v.attempted_at)).toEqual(visible.map((v) => v.attempted_at).sort().reverse());
      await recorder.stop();
    });
  });

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
      (await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at > now() + interval '10 seconds'`, [hook.id]))[0].n;
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
    expect(handedBack.every((d) => d.attempts === 0 && d.next_attempt_at!.getTime() <= Date.now())).toBe(true);

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
      databaseUrl: config.databaseUrl,
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
    const consumer = dispatcher.get(EventConsumer);
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
    const fanOut = jest.spyOn(dispatcher.get(DeliveryStore), 'fanOut');
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
      const batches = fanOut.mock.calls.map(([events]) => events.filter((e) => envelopes.some((x) => x.id === e.envelope.id)).length).filter((n) => n > 0);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(envelopes.length);
      expect(batches.length).toBeLessThan(envelopes.length);
      const dead = await waitFor('the dead letter', async () => (await channel.get(deadLetterQueue, { noAck: true })) || undefined);
      expect(dead.properties.messageId).toBe('garbage-2');
      // Unacknowledged messages would return to the queue when the consumer goes away.
      await stopDispatcher();
      expect((await channel.checkQueue(dispatcherQueue)).messageCount).toBe(0);
      await channel.close();
    } finally {
      fanOut.mockRestore();
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
      const dead = new Map<string, Record<string, unknown>>();
      await waitFor('both forged messages in the dead-letter queue', async () => {
        for (;;) {
          const message = await channel.get(deadLetterQueue, { noAck: true });
          if (!message) break;
          dead.set(String(message.properties.messageId), message.properties.headers ?? {});
        }
        return dead.has(unsignedId) && dead.has(badlySignedId);
      });
      for (const id of [unsignedId, badlySignedId]) {
        expect(dead.get(id)).toMatchObject({ 'x-rejection-reason': expect.stringMatching(/^unauthenticated_event/), 'x-original-routing-key': 'alarm.created' });
      }
      await channel.close();
    } finally {
      await connection.close();
    }
  });

  it('still delivers an unsigned message that is exactly an event the api committed (published before relays signed)', async () => {
    const { exchange } = eventTopology(prefix);
    const hook = await endpoint('/unsigned-committed');
    const id = newId();
    const envelope = { id, type: 'alarm.created', created_at: new Date().toISOString(), data: { message: 'from an older relay' } };
    // Committed and marked published, so today's relay leaves it alone: only the unsigned copy travels.
    await dataSource.query(
      `INSERT INTO outbox_events (id, account_id, event_type, aggregate_type, aggregate_id, envelope, published_at) VALUES ($1, $2, 'alarm.created', 'alarm', 'old', $3::jsonb, now())`,
      [id, hook.account_id, JSON.stringify(envelope)],
    );
    const connection = await connect(AMQP_URL);
    try {
      const channel = await connection.createConfirmChannel();
      channel.publish(exchange, 'alarm.created', Buffer.from(JSON.stringify({ account_id: hook.account_id, envelope })), { persistent: true, messageId: id });
      await channel.waitForConfirms();
      expect((await settled(hook.id, id)).status).toBe('succeeded');
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

  it('serves /health/live, /health/ready (database, broker) and /metrics', async () => {
    const hook = await endpoint('/metrics');
    const test = await service.sendTestEvent(hook.account_id, hook.id);
    await waitFor('an attempt by this instance', async () => (await deliveries(hook.id)).find((d) => d.id === test.webhook_delivery_id && d.status === 'succeeded'));
    const server = dispatcher.getHttpServer();
    await request(server).get('/health/live').expect(200, { status: 'ok' });
    await waitFor('broker readiness', async () => (await request(server).get('/health/ready')).status === 200);
    const ready = await request(server).get('/health/ready').expect(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok', broker: 'ok' } });
    const metrics = await request(server).get('/metrics').expect(200);
    for (const name of ['webhook_attempts_total', 'webhook_attempt_duration_seconds_bucket', 'webhook_deliveries_due', 'webhook_endpoints_disabled', 'webhook_event_lag_seconds_count', 'webhook_event_queue_messages{app="dispatcher"} 0']) {
      expect(metrics.text).toContain(name);
    }
  });
});

describe('connect-time SSRF guard (DNS rebinding)', () => {
  let certificate: TestCertificate;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    certificate = generateTestCertificate();
    receiver = await HttpsReceiver.start(certificate);
  });
  afterAll(() => receiver.close());

  const sender = (allowPrivateTargets: boolean) =>
    new WebhookSender({
      timeoutMs: 2000,
      allowPrivateTargets,
      maxSocketsPerOrigin: 2,
      ca: certificate.cert,
      // "rebind.example" now answers with loopback, as a rebinding attacker's DNS would.
      resolve: async (hostname) => {
        if (hostname === 'rebind.example' || hostname === 'localhost') return ['127.0.0.1'];
        throw Object.assign(new Error('DNS lookup found no address'), { code: 'ENOTFOUND' });
      },
    });

  const webhook = (url: string) => ({ url, secret: 'whsec_test', eventType: 'alarm.created', eventId: '018f0000-0000-7000-8000-000000000001', body: Buffer.from('{}') });

  it.each([
    ['a name that now resolves to loopback', 'rebind.example'],
    ['localhost', 'localhost'],
    ['an IPv4 loopback literal', '127.0.0.1'],
    ['an IPv6 loopback literal', '[::1]'],
  ])('refuses %s when private targets are not allowed, without sending anything', async (_label, host) => {
    const guarded = sender(false);
    try {
      const result = await guarded.send(webhook(`https://${host}:${receiver.port}/ssrf`));
      expect(result).toMatchObject({ outcome: 'failed', statusCode: null });
      expect(result.error).toMatch(/^target refused: /);
    } finally {
      guarded.close();
    }
    expect(receiver.received('/ssrf')).toHaveLength(0);
  });

  it('refuses a metadata address literal', async () => {
    const guarded = sender(false);
    try {
      const result = await guarded.send(webhook('https://169.254.169.254/latest/meta-data/'));
      expect(result.error).toMatch(/^target refused: 169\.254\.169\.254/);
    } finally {
      guarded.close();
    }
  });

  it('connects when private targets are allowed (tests, on-premise)', async () => {
    const open = sender(true);
    try {
      const result = await open.send(webhook(receiver.url('/ssrf-allowed')));
      expect(result).toMatchObject({ outcome: 'succeeded', statusCode: 200, error: null });
    } finally {
      open.close();
    }
    expect(receiver.received('/ssrf-allowed')).toHaveLength(1);
  });

  it('tells a timeout of the endpoint from a wait for a local connection slot (deferred: not the endpoint\'s failure)', async () => {
    receiver.script('/slot-hang', [], { status: 200, hang: true });
    // One socket for the origin: the second request waits for the first inside this process.
    const narrow = new WebhookSender({ timeoutMs: 600, slotWaitMs: 150, allowPrivateTargets: true, maxSocketsPerOrigin: 1, ca: certificate.cert });
    try {
      const [first, second] = await Promise.all([narrow.send(webhook(receiver.url('/slot-hang'))), narrow.send(webhook(receiver.url('/slot-hang')))]);
      expect(first).toMatchObject({ outcome: 'retry', statusCode: null, error: 'timeout after 600 ms' });
      expect(second).toMatchObject({ outcome: 'deferred', statusCode: null, error: 'waited too long for a local connection slot' });
      expect(second.durationMs).toBeLessThan(first.durationMs);
    } finally {
      narrow.close();
    }
    expect(receiver.received('/slot-hang')).toHaveLength(1);
  });
});
