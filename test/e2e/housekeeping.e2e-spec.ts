import { writeOutboxEvent } from '@app/events';
import { WebhookEndpointsService, WebhookStateError } from '@app/webhooks';
import { HousekeepingService } from '../../apps/api/src/housekeeping/housekeeping.service';
import { startApi, type TestApi } from '../support/api';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { insertPanelUser, signIn } from '../support/panel';
import { insertUser } from '../support/users';
import { newId } from '@app/database';

describe('housekeeping', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ OUTBOX_RELAY: 'off', OUTBOX_RETENTION_DAYS: '7', WEBHOOK_RETENTION_DAYS: '30' });
  });
  afterAll(() => api.close());

  it('deletes expired idempotency records and long-published outbox rows, and keeps everything else', async () => {
    const db = dataSourceOf(api.app);
    const accountId = await createAccount(db, 'Housekeeping Co');
    const insertKey = (key: string, expires: string) =>
      db.query(
        `INSERT INTO idempotency_records (credential_id, account_id, idempotency_key, request_hash, state, response_status, response_body, expires_at)
         VALUES ($1, $2, $3, 'h', 'completed', 201, '{}'::jsonb, now() + $4::interval)`,
        ['00000000-0000-7000-8000-0000000000c1', accountId, key, expires],
      );
    await insertKey('housekeeping-expired', '-1 minute');
    await insertKey('housekeeping-live', '1 hour');
    const event = (id: string) => db.transaction((m) => writeOutboxEvent(m, { accountId, type: 'alarm.created', aggregateType: 'alarm', aggregateId: id, data: {} }));
    const old = await event('old');
    const recent = await event('recent');
    const unpublished = await event('unpublished');
    await db.query(`UPDATE outbox_events SET published_at = now() - interval '8 days' WHERE id = $1`, [old.id]);
    await db.query(`UPDATE outbox_events SET published_at = now() - interval '1 day' WHERE id = $1`, [recent.id]);
    await db.query(`UPDATE outbox_events SET created_at = now() - interval '30 days' WHERE id = $1`, [unpublished.id]);

    const result = await api.app.get(HousekeepingService).runOnce();
    expect(result.idempotencyRecords).toBeGreaterThanOrEqual(1);
    expect(result.outboxEvents).toBeGreaterThanOrEqual(1);

    const keys = (await db.query(`SELECT idempotency_key FROM idempotency_records WHERE account_id = $1`, [accountId])).map((r: { idempotency_key: string }) => r.idempotency_key);
    expect(keys).toEqual(['housekeeping-live']);
    const events = (await db.query(`SELECT id FROM outbox_events WHERE account_id = $1 ORDER BY seq`, [accountId])).map((r: { id: string }) => r.id);
    expect(events).toEqual([recent.id, unpublished.id]);
  });

  it('deletes ended panel sessions (idle or past the absolute limit) and keeps live ones', async () => {
    const db = dataSourceOf(api.app);
    const accountId = await createAccount(db, 'Sessions Co');
    const userId = await insertUser(db, { accountId, role: 'COMPANY_ADMIN' });
    const session = async (label: string, lastSeen: string, expires: string) => {
      const id = newId();
      await db.query(
        `INSERT INTO panel_sessions (id, token_hash, user_id, account_id, csrf_token, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + $6::interval, now() + $7::interval)`,
        [id, Buffer.from(label.padEnd(32, '.')), userId, accountId, 'csrf', lastSeen, expires],
      );
      return id;
    };
    const live = await session('live', '-5 minutes', '11 hours');
    await session('idle', '-31 minutes', '11 hours');
    await session('past-absolute', '-1 minute', '-1 second');

    const result = await api.app.get(HousekeepingService).runOnce();
    expect(result.panelSessions).toBeGreaterThanOrEqual(2);
    const left = (await db.query(`SELECT id FROM panel_sessions WHERE user_id = $1`, [userId])).map((r: { id: string }) => r.id);
    expect(left).toEqual([live]);
  });

  it('bounds the webhook history: old bodies go, the last 100 attempts per endpoint stay, and the table stops growing', async () => {
    const db = dataSourceOf(api.app);
    const accountId = await createAccount(db, 'Webhook History Co');
    const service = new WebhookEndpointsService(db, { secretsKey: api.config.secretsKey, allowPrivateTargets: true });
    const busy = await service.create(accountId, { url: 'https://127.0.0.1:9/busy', events: ['alarm.created'] });
    const quiet = await service.create(accountId, { url: 'https://127.0.0.1:9/quiet', events: ['alarm.created'] });

    /** `count` closed deliveries of an endpoint, `days` old, each with one attempt (a minute apart). */
    const history = (endpointId: string, count: number, days: number, status = 'succeeded') =>
      db.query(
        `WITH d AS (
           INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, attempts,
                                           created_at, completed_at, next_attempt_at)
           SELECT gen_random_uuid(), $1, $2, gen_random_uuid(), 'alarm.created', 'event', convert_to('{"n":' || n || '}', 'UTF8'), $5, 1,
                  now() - make_interval(days => $4, mins => n), now() - make_interval(days => $4, mins => n), NULL
             FROM generate_series(1, $3) AS n
           RETURNING id, account_id, endpoint_id, event_id, completed_at
         )
         INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number, attempted_at, outcome, status_code, duration_ms)
         SELECT gen_random_uuid(), account_id, endpoint_id, id, event_id, 'alarm.created', 1, completed_at, 'succeeded', 200, 5 FROM d`,
        [accountId, endpointId, count, days, status],
      );
    await history(busy.id, 150, 40); // old: past WEBHOOK_RETENTION_DAYS
    await history(busy.id, 30, 1); // recent
    await history(quiet.id, 5, 40);
    // A pending delivery keeps its body whatever its age (the dispatcher still has to send it).
    const [pending] = await db.query(
      `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, created_at, next_attempt_at)
       VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'alarm.created', 'event', '\\x7b7d', 'pending', now() - interval '60 days', now())
       RETURNING id`,
      [accountId, busy.id],
    );
    const stats = async (endpointId: string) =>
      (
        await db.query(
          `SELECT count(*)::int AS deliveries, count(body)::int AS bodies,
                  (SELECT count(*)::int FROM webhook_attempts WHERE endpoint_id = $1) AS attempts
             FROM webhook_deliveries WHERE endpoint_id = $1`,
          [endpointId],
        )
      )[0] as { deliveries: number; bodies: number; attempts: number };
    const newestAttempts = async (endpointId: string): Promise<string[]> =>
      (await db.query('SELECT id FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY attempted_at DESC, id DESC LIMIT 100', [endpointId])).map(
        (r: { id: string }) => r.id,
      );
    const keptBefore = await newestAttempts(busy.id);

    const first = await api.app.get(HousekeepingService).runOnce();
    // At least this suite's rows (a run shares its database with the other suites).
    expect(first.webhookAttempts).toBeGreaterThanOrEqual(80);
    expect(first.webhookDeliveries).toBeGreaterThanOrEqual(80);
    expect(first.webhookBodies).toBeGreaterThanOrEqual(75);
    // busy: 181 rows → the 30 recent ones (with bodies), the 70 old ones the kept attempts point at
    // (without), and the pending one. quiet: its 5 old rows stay (their attempts are its last 100).
    expect(await stats(busy.id)).toEqual({ deliveries: 101, bodies: 31, attempts: 100 });
    expect(await stats(quiet.id)).toEqual({ deliveries: 5, bodies: 0, attempts: 5 });
    expect(await newestAttempts(busy.id)).toEqual(keptBefore);
    const [kept] = await db.query('SELECT status, body FROM webhook_deliveries WHERE id = $1', [pending.id]);
    expect(kept.status).toBe('pending');
    expect(kept.body).toEqual(Buffer.from('{}'));

    // A month of new traffic later, the table is no larger: new rows push the old ones out.
    await db.query(`UPDATE webhook_deliveries SET completed_at = completed_at - interval '40 days' WHERE endpoint_id = $1 AND status = 'succeeded'`, [busy.id]);
    await db.query(`UPDATE webhook_attempts SET attempted_at = attempted_at - interval '40 days' WHERE endpoint_id = $1`, [busy.id]);
    await history(busy.id, 100, 0);
    await api.app.get(HousekeepingService).runOnce();
    expect(await stats(busy.id)).toEqual({ deliveries: 101, bodies: 101, attempts: 100 });
    expect(await api.app.get(HousekeepingService).runOnce()).toMatchObject({ webhookAttempts: 0, webhookDeliveries: 0, webhookBodies: 0 });

    // Sending a pruned event again is a clear refusal, not a 500.
    const [{ event_id: prunedEvent }] = await db.query('SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 AND body IS NULL LIMIT 1', [quiet.id]);
    const refused = await service.resend(accountId, quiet.id, prunedEvent).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebhookStateError);
    expect(refused).toMatchObject({ code: 'event_expired' });
    const admin = await signIn(api, (await insertPanelUser(db, accountId, 'COMPANY_ADMIN')).email);
    const viaPanel = await admin.agent.post(`/panel/webhooks/${quiet.id}/resend/`).type('form').send({ _csrf: admin.csrf, event_id: prunedEvent });
    expect(viaPanel.status).toBe(303);
    expect(viaPanel.headers.location).toBe(`/panel/webhooks/${quiet.id}/?notice=event_expired`);
    const page = await admin.agent.get(viaPanel.headers.location).expect(200);
    expect(page.text).toContain('That event is older than the retention period');
    // The attempt log of the pruned deliveries is still shown.
    expect(page.text).toContain(prunedEvent);
  });
  it('keeps 8 days of hourly webhook delivery health (the panel charts 7)', async () => {
    const db = dataSourceOf(api.app);
    const accountId = await createAccount(db, 'Webhook Health Co');
    const service = new WebhookEndpointsService(db, { secretsKey: api.config.secretsKey, allowPrivateTargets: true });
    const hook = await service.create(accountId, { url: 'https://127.0.0.1:9/health', events: ['alarm.created'] });
    // One row per hour for the last 10 days.
    await db.query(
      `INSERT INTO webhook_endpoint_hourly_stats (endpoint_id, hour, account_id, succeeded, failed, latency_buckets, max_duration_ms)
       SELECT $1, date_trunc('hour', now(), 'UTC') - make_interval(hours => n), $2, 1, 0, '{1,0,0,0,0,0,0,0,0,0,0}', 5 FROM generate_series(0, 239) AS n`,
      [hook.id, accountId],
    );
    const result = await api.app.get(HousekeepingService).runOnce();
    expect(result.webhookHourlyStats).toBeGreaterThanOrEqual(47);
    const [{ n, oldest }] = await db.query(
      `SELECT count(*)::int AS n, min(hour) > now() - interval '8 days' AS oldest FROM webhook_endpoint_hourly_stats WHERE endpoint_id = $1`,
      [hook.id],
    );
    expect({ n, oldest }).toEqual({ n: 192, oldest: true });
    const health = await service.health(accountId, hook.id);
    expect(health.last_7_days.totals.attempts).toBe(168);
    expect(health.last_24_hours.totals.attempts).toBe(24);
  });
});
