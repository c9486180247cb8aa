import { createServer } from 'node:net';
import type { DataSource } from 'typeorm';
import type { WebhookEndpointsService } from '@app/webhooks';
import { createAccount } from '../support/fixtures';
import type { HttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait';
import { PER_ENDPOINT, WebhookDispatcherHarness } from './support/webhook-dispatcher-harness';

describe('webhook dispatcher: retries, permanent failures and disabling endpoints', () => {
  const harness = new WebhookDispatcherHarness();
  const { startDispatcher, stopDispatcher, endpoint, publish, deliveries, attempts, settled, verifies } = harness;
  let receiver: HttpsReceiver;
  let dataSource: DataSource;
  let service: WebhookEndpointsService;

  beforeAll(async () => {
    await harness.setUp();
    ({ receiver, dataSource, service } = harness);
  });

  // A test that stopped or replaced the dispatcher and failed midway must not fail the next ones too.
  afterEach(() => harness.restoreDispatcher());

  afterAll(() => harness.tearDown());

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

    // Disabled: new events are recorded as not sent ('skipped'), never queued.
    const ignored = await publish(hook.account_id);
    const marker = await endpoint('/disable-20-marker', ['alarm.created'], hook.account_id);
    const next = await publish(hook.account_id);
    await settled(marker.id, next.id);
    expect((await deliveries(hook.id)).filter((d) => d.event_id === ignored.id).map((d) => d.status)).toEqual(['skipped']);

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
});
