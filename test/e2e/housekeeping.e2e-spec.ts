import { writeOutboxEvent } from '@app/events';
import { HousekeepingService } from '../../apps/api/src/common/housekeeping.service';
import { startApi, type TestApi } from '../support/api';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { insertUser } from '../support/users';
import { newId } from '@app/database';

describe('housekeeping', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ OUTBOX_RELAY: 'off', OUTBOX_RETENTION_DAYS: '7' });
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
});
