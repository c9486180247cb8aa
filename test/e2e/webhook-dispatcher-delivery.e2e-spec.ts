import request from 'supertest';
import type { DataSource } from 'typeorm';
import { newId } from '@app/database';
import { createLogger } from '@app/observability';
import { verifyWebhookRequest } from '@app/webhook-kit';
import { type ClaimRequest, type CreatedWebhookEndpoint, type WebhookEndpointsService } from '@app/webhooks';
import { claimDueDeliveries, recordDeliverySuccesses, releaseDeliveryClaims } from '@app/webhooks/store/webhook-deliveries.repository';
import { WEBHOOK_DELIVERY_QUERIES } from '../../libs/webhooks/src/store/webhook-deliveries.queries';
import { AttemptRecorder } from '../../apps/dispatcher/src/delivery/attempt-recorder';
import { DeliveryStore, type ClaimedDelivery } from '../../apps/dispatcher/src/delivery/delivery-store';
import type { AttemptResult } from '../../apps/dispatcher/src/delivery/webhook-sender';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { spyOnStatement } from '../support/statement-spy';
import type { HttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait';
import { WebhookDispatcherHarness, type AttemptRow, type DeliveryRow } from './support/webhook-dispatcher-harness';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhook dispatcher: delivery (fan-out, signing, manual sends, attempt log, health)', () => {
  const harness = new WebhookDispatcherHarness();
  const { endpoint, publish, deliveries, attempts, settled, verifies } = harness;
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
    for (const hook of [otherType, otherTenant]) expect(await deliveries(hook.id)).toEqual([]);
    // The disabled endpoint gets a closed row saying the event was not sent to it (the event log shows it; a recovery can send it).
    expect((await deliveries(disabled.id)).map((d) => [d.event_id, d.status, d.attempts, d.body, d.next_attempt_at])).toEqual([[envelope.id, 'skipped', 0, null, null]]);
    const shipment = await publish(accountId, 'shipment.created', { id: 5 });
    await settled(subscribed.id, shipment.id);
    expect(receiver.received('/filter/subscribed').map((r) => r.headers['x-service-event'])).toEqual(['alarm.created', 'shipment.created']);
    for (const path of ['/filter/other-type', '/filter/disabled', '/filter/other-tenant']) expect(receiver.received(path)).toEqual([]);

    // The fan-out makes its rows' ids in the database (uuid_v7()): version 7, their first 48 bits the
    // moment they were made, so they grow with time like the ids the service makes in Node.
    const rows: Array<{ id: string; created_at: Date }> = await dataSource.query(
      'SELECT id::text, created_at FROM webhook_deliveries WHERE endpoint_id = ANY($1) ORDER BY created_at, id',
      [[subscribed.id, disabled.id]],
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const madeAt = parseInt(row.id.replace(/-/g, '').slice(0, 12), 16);
      expect(Math.abs(madeAt - row.created_at.getTime())).toBeLessThan(5_000);
    }
    expect(rows[rows.length - 1].id > rows[0].id).toBe(true); // the shipment's delivery, made later
  });

  it('signs with the current secret: a rotation between two attempts applies to the retry', async () => {
    const hook = await endpoint('/rotation');
    const newSecret = harness.rotateBeforeRetry(hook, '/rotation');
    const envelope = await publish(hook.account_id);
    expect((await settled(hook.id, envelope.id)).status).toBe('succeeded');
    const rotated = newSecret();
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
    await harness.dispatcher.get(AttemptRecorder).pruneAll();
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
      const store = harness.dispatcher.get(DeliveryStore);
      const statements = spyOnStatement(store.db, WEBHOOK_DELIVERY_QUERIES.recordSuccesses);
      const recorder = new AttemptRecorder(store, { maxBatch: 500, pruneEvery: 100, pruneIntervalMs: 60_000, logger });
      recorder.start();
      const claimed = await leased(hook, 5);
      const results = claimed.map(() => success());
      const recorded = claimed.map((delivery, i) => recorder.recordSuccess(delivery, results[i]));
      expect(recorder.backlog).toBe(5);
      // stop() before anything was written: it writes what is pending.
      await recorder.stop();
      await Promise.all(recorded);
      expect(statements.calls).toHaveLength(1);
      statements.restore();
      expect(recorder.backlog).toBe(0);

      const rows: DeliveryRow[] = await dataSource.query('SELECT * FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id', [claimed.map((d) => d.id)]);
      expect(rows.map((d) => [d.status, d.attempts, d.next_attempt_at, d.last_status_code])).toEqual(claimed.map(() => ['succeeded', 1, null, 204]));
      const logged: AttemptRow[] = await dataSource.query('SELECT * FROM webhook_attempts WHERE webhook_delivery_id = ANY($1)', [claimed.map((d) => d.id)]);
      expect(logged.map((a) => a.id).sort()).toEqual(results.map((r) => r.deliveryId).sort());
      expect(logged.every((a) => a.attempt_number === 1 && a.outcome === 'succeeded' && a.status_code === 204)).toBe(true);
      const [{ consecutive_failures }] = await dataSource.query('SELECT consecutive_failures FROM webhook_endpoints WHERE id = $1', [hook.id]);
      expect(consecutive_failures).toBe(0);
      // The same statement counted them in the endpoint's hourly delivery health (5 attempts of 3 ms: the first bucket).
      const [health] = await dataSource.query(
        `SELECT sum(succeeded)::int AS succeeded, sum(failed)::int AS failed, sum(latency_buckets[1])::int AS fastest, max(max_duration_ms) AS slowest
           FROM webhook_endpoint_hourly_stats WHERE endpoint_id = $1`,
        [hook.id],
      );
      expect(health).toEqual({ succeeded: 5, failed: 0, fastest: 5, slowest: 3 });
    });

    it('writes deliveries and their attempts without locking the account row (migration WebhookImpliedForeignKeys), and deleting the endpoint still deletes both', async () => {
      const hook = await endpoint('/recorder-account-row');
      const recorder = new AttemptRecorder(harness.dispatcher.get(DeliveryStore), { maxBatch: 500, pruneEvery: 100, pruneIntervalMs: 60_000, logger });
      recorder.start();
      const record = async (count: number): Promise<ClaimedDelivery[]> => {
        const claimed = await leased(hook, count);
        await Promise.all(claimed.map((delivery) => recorder.recordSuccess(delivery, success())));
        return claimed;
      };
      // A locker of a row leaves its transaction id in the row's xmax: a foreign key check locks the parent row (FOR KEY SHARE).
      const accountRowLocker = async (): Promise<string> => (await dataSource.query('SELECT xmax::text AS xmax FROM accounts WHERE id = $1', [hook.account_id]))[0].xmax;
      try {
        await record(1); // the first success of the hour inserts the endpoint's health row, which checks its account
        const before = await accountRowLocker();
        const claimed = await record(3);
        expect(await accountRowLocker()).toBe(before);
        expect(Number((await dataSource.query('SELECT count(*) AS n FROM webhook_attempts WHERE webhook_delivery_id = ANY($1)', [claimed.map((d) => d.id)]))[0].n)).toBe(3);
      } finally {
        await recorder.stop();
      }
      await dataSource.query('DELETE FROM webhook_endpoints WHERE id = $1', [hook.id]);
      const [left] = await dataSource.query(
        `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = $1) AS deliveries, (SELECT count(*)::int FROM webhook_attempts WHERE endpoint_id = $1) AS attempts`,
        [hook.id],
      );
      expect(left).toEqual({ deliveries: 0, attempts: 0 });
    });

    it('does not close a delivery that is no longer the attempt it recorded (cancelled or recorded meanwhile)', async () => {
      const hook = await endpoint('/recorder-stale');
      const store = harness.dispatcher.get(DeliveryStore);
      const [cancelled, recordedTwice] = await leased(hook, 2);
      await dataSource.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE id = $1`, [cancelled.id]);
      expect(await recordDeliverySuccesses(store.db, [{ delivery: recordedTwice, result: success() }])).toEqual([recordedTwice.id]);
      expect(await recordDeliverySuccesses(store.db, [{ delivery: cancelled, result: success() }, { delivery: recordedTwice, result: success() }])).toEqual([]);
      const rows: DeliveryRow[] = await dataSource.query('SELECT * FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id', [[cancelled.id, recordedTwice.id]]);
      expect(Object.fromEntries(rows.map((d) => [d.id, [d.status, d.attempts]]))).toEqual({ [cancelled.id]: ['cancelled', 0], [recordedTwice.id]: ['succeeded', 1] });
    });

    it('trims an endpoint to its newest 100 attempts once pruneEvery of its attempts were recorded, not on each', async () => {
      const hook = await endpoint('/recorder-trim');
      const other = await endpoint('/recorder-trim-other', ['alarm.created'], hook.account_id);
      const store = harness.dispatcher.get(DeliveryStore);
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

  describe('claims (a lease outside the indexes)', () => {
    /** `count` due deliveries of the endpoint, the first due earliest. */
    async function due(hook: CreatedWebhookEndpoint, count: number): Promise<string[]> {
      const rows: Array<{ id: string }> = await dataSource.query(
        `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
         SELECT gen_random_uuid(), $1, $2, gen_random_uuid(), 'alarm.created', 'test', '\\x7b7d'::bytea, 'pending', now() - make_interval(secs => 100 - n)
           FROM generate_series(1, $3) AS n ORDER BY n
         RETURNING id`,
        [hook.account_id, hook.id, count],
      );
      return rows.map((row) => row.id);
    }

    const claim = async (store: DeliveryStore, limit: number): Promise<ClaimedDelivery[]> => (await claimDueDeliveries(store.db, claimRequest(store.workerId, limit))).claimed;

    it('claims the oldest due first within the bounds, leases them in lease_until (next_attempt_at untouched), and skips leased ones', async () => {
      await harness.stopDispatcher(); // the test is the only claimer
      const hook = await endpoint('/claims');
      const store = new DeliveryStore(dataSource);
      const ids = await due(hook, 6);
      const before: DeliveryRow[] = await dataSource.query('SELECT * FROM webhook_deliveries WHERE id = ANY($1)', [ids]);

      const first = await claim(store, 10);
      expect(first.map((d) => d.id).sort()).toEqual(ids.slice(0, 4).sort()); // 4 per endpoint, oldest due first
      expect(first.every((d) => d.url === hook.url && d.body.equals(Buffer.from('{}')) && d.attempts === 0)).toBe(true);
      const after: DeliveryRow[] = await dataSource.query('SELECT * FROM webhook_deliveries WHERE id = ANY($1)', [ids]);
      const leased = after.filter((d) => d.lease_until !== null);
      expect(leased.map((d) => d.id).sort()).toEqual(ids.slice(0, 4).sort());
      expect(leased.every((d) => d.lease_until!.getTime() > Date.now() + 50_000 && d.status === 'pending')).toBe(true);
      // The schedule is not the lease: next_attempt_at (the indexed column) keeps its value.
      expect(after.map((d) => [d.id, d.next_attempt_at!.getTime()]).sort()).toEqual(before.map((d) => [d.id, d.next_attempt_at!.getTime()]).sort());

      // Leased rows are skipped although due: the next claim takes the other two, then nothing.
      expect((await claim(store, 10)).map((d) => d.id).sort()).toEqual(ids.slice(4).sort());
      expect(await claim(store, 10)).toEqual([]);

      // Handed back now: due again at once; handed back for later: not before then.
      const oldestFirst = ids.slice(0, 4).map((id) => first.find((d) => d.id === id) as ClaimedDelivery);
      await releaseDeliveryClaims(store.db, oldestFirst.slice(0, 2), 0);
      await releaseDeliveryClaims(store.db, oldestFirst.slice(2), 60_000);
      expect((await claim(store, 10)).map((d) => d.id).sort()).toEqual(ids.slice(0, 2).sort());
      expect(await claim(store, 10)).toEqual([]);
      const [backlog] = await dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND lease_until > now() + interval '50 seconds'`,
        [hook.id],
      );
      expect(backlog.n).toBe(6);
    });

    it('claims in one statement outside any transaction and writes the grants it returns: the others\' grants count against them, and a forgotten process gets them back', async () => {
      await harness.stopDispatcher();
      const hook = await endpoint('/claims-grants');
      const store = new DeliveryStore(dataSource);
      await due(hook, 8); // all claimed by the end (the next test claims whatever is due)
      const grantsInDatabase = async (workerId: string): Promise<Array<[string, string, number]>> =>
        (await dataSource.query('SELECT scope, key, slots FROM webhook_slot_grants WHERE worker_id = $1 ORDER BY scope', [workerId])).map(
          (row: { scope: string; key: string; slots: number }) => [row.scope, row.key, row.slots],
        );
      // Another live dispatcher is granted 3 of the endpoint's 4 concurrent attempts.
      const other = newId();
      await dataSource.query(`INSERT INTO webhook_dispatchers (worker_id, until) VALUES ($1, now() + interval '1 minute')`, [other]);
      await dataSource.query(`INSERT INTO webhook_slot_grants (worker_id, scope, key, slots) VALUES ($1, 'endpoint', $2, 3)`, [other, hook.id]);
      const request = (inHand: number): ClaimRequest => ({
        ...claimRequest(store.workerId, 10),
        holdPerEndpoint: 8,
        inHandEndpoints: new Map(inHand ? [[hook.id, inHand]] : []),
        inHandAccounts: new Map(inHand ? [[hook.account_id, inHand]] : []),
      });

      // The pool's own statement (a transaction would run on a checked-out client): one round trip.
      const statements = spyOnStatement(dataSource, WEBHOOK_DELIVERY_QUERIES.claimDueDeliveries);
      const first = await claimDueDeliveries(store.db, request(0));
      statements.restore();
      expect(statements.calls).toHaveLength(1);
      expect(first.claimed).toHaveLength(2); // may hold 8, less twice the other's 3
      expect(first.grants).toEqual({ endpoints: new Map([[hook.id, 1]]), accounts: new Map([[hook.account_id, 2]]) }); // min(4 − 3, 2); min(10, 2)
      expect(await grantsInDatabase(store.workerId)).toEqual([['account', hook.account_id, 2], ['endpoint', hook.id, 1]]);

      // Forgotten (its lease ran out while it was paused, say): its grants went with it; the next claim writes them again.
      await dataSource.query('DELETE FROM webhook_dispatchers WHERE worker_id = $1', [store.workerId]);
      expect(await grantsInDatabase(store.workerId)).toEqual([]);
      const again = await claimDueDeliveries(store.db, request(2));
      expect(again.claimed).toEqual([]); // 2 in hand + 2 × 3 granted elsewhere: the hold of 8 is full
      expect(await grantsInDatabase(store.workerId)).toEqual([['account', hook.account_id, 2], ['endpoint', hook.id, 1]]);

      // The other dispatcher's lease runs out: the next claim forgets it with its grants, and takes its share.
      await dataSource.query(`UPDATE webhook_dispatchers SET until = now() - interval '1 second' WHERE worker_id = $1`, [other]);
      const after = await claimDueDeliveries(store.db, request(2));
      expect(after.claimed).toHaveLength(6); // the rest: 8 − 2 in hand
      expect(after.grants).toEqual({ endpoints: new Map([[hook.id, 4]]), accounts: new Map([[hook.account_id, 8]]) });
      expect(await grantsInDatabase(store.workerId)).toEqual([['account', hook.account_id, 8], ['endpoint', hook.id, 4]]);
      expect(await grantsInDatabase(other)).toEqual([]);
      const [{ live }] = await dataSource.query('SELECT count(*)::int AS live FROM webhook_dispatchers WHERE worker_id = $1', [other]);
      expect(live).toBe(0);

      // Holding nothing of a key any more drops its grant.
      await claimDueDeliveries(store.db, { ...request(0), limit: 0 });
      expect(await grantsInDatabase(store.workerId)).toEqual([]);
    });

    it('a claim and its success batch read the rows they close, not the whole due backlog, whatever the statistics say', async () => {
      await harness.stopDispatcher();
      const hook = await endpoint('/claims-backlog');
      // Statistics taken while little was pending (a new or quiet system), then a backlog arrives: an
      // outage's worth of due deliveries. Plans cached by the dispatcher's connections outlive that.
      await dataSource.query('ANALYZE webhook_deliveries');
      await due(hook, 6_000);
      const read = await dataSource.transaction(async (manager) => {
        // The plans a long-lived connection settles on (generic: made once, for any parameters).
        await manager.query('SET LOCAL plan_cache_mode = force_generic_plan');
        const blocks = async (): Promise<{ heap: number; due: number }> =>
          (
            await manager.query(
              `SELECT pg_stat_get_xact_blocks_fetched('webhook_deliveries'::regclass)::int AS heap,
                      pg_stat_get_xact_blocks_fetched('webhook_deliveries_due_idx'::regclass)::int AS due`,
            )
          )[0];
        const before = await blocks();
        const { claimed } = await claimDueDeliveries(manager, claimRequest(newId(), 4));
        expect(claimed).toHaveLength(4);
        const claimedAt = await blocks();
        const attemptedAt = new Date();
        const closed = await recordDeliverySuccesses(
          manager,
          claimed.map((delivery) => ({ delivery, result: { deliveryId: newId(), attemptedAt, statusCode: 204, error: null, durationMs: 3 } })),
        );
        expect(closed.sort()).toEqual(claimed.map((d) => d.id).sort());
        const recordedAt = await blocks();
        return {
          claim: { heap: claimedAt.heap - before.heap, due: claimedAt.due - before.due },
          success: { heap: recordedAt.heap - claimedAt.heap, due: recordedAt.due - claimedAt.due },
        };
      });
      // 6,000 due rows fill about 180 heap pages and 30 pages of the due index: a scan of them shows here
      // (the success batch read 222 and 31 before it said "pending" without matching the due index).
      // What remains is the claim's walk of the endpoints with due work and the new row versions' pages.
      expect(read.claim.heap).toBeLessThan(80);
      expect(read.claim.due).toBeLessThan(25);
      expect(read.success.heap).toBeLessThan(80);
      expect(read.success.due).toBe(0);
      await dataSource.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, completed_at = now() WHERE endpoint_id = $1 AND status = 'pending'`, [hook.id]);
    });

    it('a dispatcher serving alone claims about once per event at low load, and still drains a backlog beyond its hold without the poll', async () => {
      await harness.stopDispatcher();
      await dataSource.query('DELETE FROM webhook_dispatchers'); // the earlier tests' claimers: it serves alone
      await harness.startDispatcher({ webhookPollIntervalMs: 60_000 }); // only NOTIFY and responses wake it
      const hook = await endpoint('/claims-alone');
      const claims = spyOnStatement(dataSourceOf(harness.dispatcher), WEBHOOK_DELIVERY_QUERIES.claimDueDeliveries);
      try {
        // One at a time: each event's NOTIFY claims it; its response finds nothing left behind to claim.
        for (let n = 0; n < 10; n += 1) {
          const envelope = await publish(hook.account_id);
          await settled(hook.id, envelope.id);
        }
        expect(claims.calls.length).toBeLessThanOrEqual(12); // was 2–3 per event: one after every response
        // A burst beyond what it may hold of the endpoint (2 × 2): the claims that stop at the hold
        // mark the endpoint, so its responses claim the rest, well before any poll.
        const burst = await Promise.all(Array.from({ length: 16 }, () => publish(hook.account_id)));
        await waitFor('the burst to be delivered', async () => {
          const closed = new Set((await deliveries(hook.id)).filter((d) => d.status === 'succeeded').map((d) => d.event_id));
          return burst.every((envelope) => closed.has(envelope.id));
        }, 10_000);
      } finally {
        claims.restore();
      }
      // The claim says how many other dispatchers are live: none here.
      const probe = newId();
      const { otherDispatchers } = await claimDueDeliveries(new DeliveryStore(dataSource).db, claimRequest(probe, 0));
      await dataSource.query('DELETE FROM webhook_dispatchers WHERE worker_id = $1', [probe]);
      expect(otherDispatchers).toBe(1); // the harness's dispatcher, seen from this other worker id
    });

    it('claims, hand-backs and deferrals are HOT updates (no indexed column changes)', async () => {
      await harness.stopDispatcher();
      const hook = await endpoint('/claims-hot');
      const ids = await due(hook, 4);
      // On one connection, so that this transaction's own statistics count every update it made. PostgreSQL
      // (15) adds the connection's earlier transactions whose statistics it has not flushed yet (at most once a
      // second, and only between transactions): the claim's own transaction on this pooled connection a moment
      // ago, say. Those cannot change inside this transaction, so the difference is this transaction's alone.
      const hot = await dataSource.transaction(async (manager) => {
        const updates = async (): Promise<{ updated: number; hot: number }> =>
          (
            await manager.query(
              `SELECT pg_stat_get_xact_tuples_updated('webhook_deliveries'::regclass)::int AS updated,
                      pg_stat_get_xact_tuples_hot_updated('webhook_deliveries'::regclass)::int AS hot`,
            )
          )[0];
        const before = await updates();
        const { claimed } = await claimDueDeliveries(manager, claimRequest(newId(), 10));
        expect(claimed.map((d) => d.id).sort()).toEqual([...ids].sort());
        await releaseDeliveryClaims(manager, claimed.slice(0, 2), 0);
        await releaseDeliveryClaims(manager, claimed.slice(2), 5_000);
        const after = await updates();
        return { updated: after.updated - before.updated, hot: after.hot - before.hot };
      });
      expect(hot).toEqual({ updated: 8, hot: 8 });
    });

    it('walks a ring of the endpoints with pending deliveries, a window at a time, and says where the next claim starts', async () => {
      await harness.stopDispatcher();
      await dataSource.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL, completed_at = now() WHERE status = 'pending'`);
      const hooks: CreatedWebhookEndpoint[] = [];
      for (const path of ['/ring-0', '/ring-1', '/ring-2']) hooks.push(await endpoint(path));
      const ring = await ringOrder(dataSource, hooks.map((h) => h.id));
      const dueIds = new Map<string, string[]>();
      for (const hook of hooks) dueIds.set(hook.id, await due(hook, 2));
      const store = new DeliveryStore(dataSource);
      const claimFrom = (after: ClaimRequest['after']) => claimDueDeliveries(store.db, claimRequest(store.workerId, 10, after, 2));

      // A window of 2 from the start of the ring: its first two endpoints' deliveries only, and the cursor at the second.
      const first = await claimFrom(null);
      expect(first.claimed.map((d) => d.id).sort()).toEqual([...dueIds.get(ring[0].endpointId)!, ...dueIds.get(ring[1].endpointId)!].sort());
      expect(first.resumeAfter).toEqual(ring[1]);
      // The next window reaches the end of the ring: the next claim starts at its start.
      const second = await claimFrom(first.resumeAfter);
      expect(second.claimed.map((d) => d.id).sort()).toEqual([...dueIds.get(ring[2].endpointId)!].sort());
      expect(second.resumeAfter).toBeNull();
      // Leased deliveries are still pending: a window over them claims nothing, yet moves on.
      const third = await claimFrom(null);
      expect(third.claimed).toEqual([]);
      expect(third.resumeAfter).toEqual(ring[1]);
      // Closed: not pending any more, so no window visits them.
      await dataSource.query(`UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL, lease_until = NULL, completed_at = now() WHERE endpoint_id = ANY($1)`, [hooks.map((h) => h.id)]);
      expect((await claimFrom(null)).resumeAfter).toBeNull();
    });

    it('a window of the ring spans many accounts, where a window of endpoints in id order was one or two (their ids are time-ordered)', async () => {
      await harness.stopDispatcher();
      await dataSource.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL, completed_at = now() WHERE status = 'pending'`);
      // 10 accounts of 8 endpoints, each account's ids consecutive as the API's time-ordered ids make them;
      // fixed ids, so the ring's order (their hashes) is the same in every run.
      await dataSource.query(
        `WITH accounts AS (
           INSERT INTO accounts (id, name, kind, status)
           SELECT md5('ring-spread-account-' || a)::uuid, 'Ring spread ' || a, 'customer', 'active' FROM generate_series(1, 10) a
           RETURNING id, name
         ), endpoints AS (
           INSERT INTO webhook_endpoints (id, account_id, url, events, description, secret_ciphertext)
           SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(split_part(a.name, ' ', 3)::int * 100 + n), 12, '0'))::uuid, a.id,
                  'https://127.0.0.1:9/hooks/' || n, '{alarm.created}', 'ring spread', 'unused'
             FROM accounts a, generate_series(1, 8) n
           RETURNING id, account_id
         )
         INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
         SELECT gen_random_uuid(), e.account_id, e.id, gen_random_uuid(), 'alarm.created', 'test', '\\x7b7d'::bytea, 'pending', now() - interval '1 second'
           FROM endpoints e`,
      );
      try {
        const store = new DeliveryStore(dataSource);
        const { claimed } = await claimDueDeliveries(store.db, { ...claimRequest(store.workerId, 10, null, 10), holdPerAccount: 10, perAccount: 10 });
        expect(claimed).toHaveLength(10);
        const accounts = (deliveries: Array<{ account_id: string }>) => new Set(deliveries.map((d) => d.account_id)).size;
        const byId: Array<{ account_id: string }> = await dataSource.query(`SELECT account_id FROM webhook_endpoints WHERE description = 'ring spread' ORDER BY id LIMIT 10`);
        expect(accounts(byId)).toBeLessThanOrEqual(2);
        expect(accounts(claimed)).toBeGreaterThanOrEqual(5);
      } finally {
        await dataSource.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL, completed_at = now() WHERE status = 'pending'`);
        await dataSource.query(`UPDATE webhook_endpoints SET enabled = false WHERE description = 'ring spread'`);
      }
    });

    it('the dispatcher walks on past windows with nothing due: a delivery behind 80 endpoints waiting for retries goes out at once, not at the next poll', async () => {
      await harness.stopDispatcher();
      const waiting: CreatedWebhookEndpoint[] = [];
      for (let n = 0; n < 80; n++) waiting.push(await endpoint(`/ring-waiting-${n}`));
      const last = await endpoint('/ring-last');
      // Pending, due in an hour: in the walk's way (windows of 16 and wider at this concurrency), claiming nothing.
      await dataSource.query(
        `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
         SELECT gen_random_uuid(), w.account_id, w.id, gen_random_uuid(), 'alarm.created', 'test', '\\x7b7d'::bytea, 'pending', now() + interval '1 hour'
           FROM webhook_endpoints w WHERE w.id = ANY($1)`,
        [waiting.map((w) => w.id)],
      );
      const [lastDue] = await due(last, 1);
      // The start's first pump must walk the whole ring: the poll is a minute away.
      await harness.startDispatcher({ webhookConcurrency: 2, webhookPollIntervalMs: 60_000 });
      try {
        await waitFor('the delivery behind the waiting endpoints', async () => (await deliveries(last.id)).find((d) => d.id === lastDue && d.status === 'succeeded'), 10_000);
      } finally {
        await dataSource.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, completed_at = now() WHERE endpoint_id = ANY($1) AND status = 'pending'`, [waiting.map((w) => w.id)]);
      }
    });
  });

  it('serves /health/live, /health/ready (database, broker) and /metrics', async () => {
    const hook = await endpoint('/metrics');
    const test = await service.sendTestEvent(hook.account_id, hook.id);
    await waitFor('an attempt by this instance', async () => (await deliveries(hook.id)).find((d) => d.id === test.webhook_delivery_id && d.status === 'succeeded'));
    const server = harness.dispatcher.getHttpServer();
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

/** The endpoints' places in the claims' ring (migration WebhookClaimRing), in ring order. */
async function ringOrder(dataSource: DataSource, endpointIds: string[]): Promise<Array<{ ring: number; endpointId: string }>> {
  const rows: Array<{ ring: number; id: string }> = await dataSource.query(
    'SELECT uuid_hash(id) AS ring, id FROM webhook_endpoints WHERE id = ANY($1) ORDER BY uuid_hash(id), id',
    [endpointIds],
  );
  return rows.map((row) => ({ ring: row.ring, endpointId: row.id }));
}

/** A claim as the dispatcher makes it with nothing in hand: 4 per endpoint, `limit` in all and per account, a whole ring's window. */
function claimRequest(workerId: string, limit: number, after: ClaimRequest['after'] = null, window = 1000): ClaimRequest {
  return {
    workerId,
    limit,
    holdPerEndpoint: 4,
    holdPerAccount: limit,
    inHandEndpoints: new Map(),
    inHandAccounts: new Map(),
    perEndpoint: 4,
    perAccount: limit,
    leaseMs: 60_000,
    after,
    window,
  };
}
