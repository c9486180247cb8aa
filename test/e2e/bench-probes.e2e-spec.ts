import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openMigrated } from '../../bench/harness/bench-database';
import { checkLedger, LedgerMismatch, receiverKey } from '../../bench/harness/ledger';
import { SCENARIOS } from '../../bench/scenarios';

/**
 * Every bench scenario's own statements (the ones it sends to PostgreSQL itself, not through the
 * apps) run once against the current schema and queries: a changed statement breaks this test,
 * not the next `npm run bench` (issue 26: `tenants-claim` failed for weeks with
 * `invalid input syntax for type uuid` after the claim statement gained a worker id).
 */
describe('bench scenario probes', () => {
  let db: DataSource;

  beforeAll(async () => {
    db = await openMigrated(process.env.DATABASE_URL ?? '');
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('cover the scenarios that send statements of their own', () => {
    const probed = SCENARIOS.filter((s) => s.probe).map((s) => s.name);
    expect(probed).toEqual(expect.arrayContaining(['tenants-claim', 'webhooks', 'webhooks-floor', 'audit-list', 'audit-write-cost']));
  });

  for (const scenario of SCENARIOS.filter((s) => s.probe)) {
    it(`${scenario.name}: its statements run against the current queries`, async () => {
      await expect(scenario.probe?.(db)).resolves.toBeUndefined();
    });
  }
});

describe('the bench delivery ledger, read from the database', () => {
  let db: DataSource;
  beforeAll(async () => {
    db = await openMigrated(process.env.DATABASE_URL ?? '');
  });
  afterAll(async () => {
    await db?.destroy();
  });

  /** An account with one endpoint, three committed events, and a delivery row per event in these statuses. */
  async function seed(statuses: string[]): Promise<{ id: string; url: string }> {
    const accountId = randomUUID();
    const endpoint = { id: randomUUID(), url: `https://127.0.0.1:${40_000 + Math.floor(Math.random() * 1000)}/ledger` };
    await db.query(`INSERT INTO accounts (id, name, kind, status) VALUES ($1, 'Ledger test', 'customer', 'active')`, [accountId]);
    await db.query(
      `INSERT INTO webhook_endpoints (id, account_id, url, events, description, secret_ciphertext) VALUES ($1, $2, $3, '{alarm.created}', 'ledger test', 'unused')`,
      [endpoint.id, accountId, endpoint.url],
    );
    for (let n = 0; n < 3; n++) {
      const eventId = randomUUID();
      await db.query(
        // Published already: the suites after this one share the database, and their relays must not send these.
        `INSERT INTO outbox_events (id, account_id, event_type, aggregate_type, aggregate_id, envelope, published_at) VALUES ($1, $2, 'alarm.created', 'alarm', $3, '{}', now())`,
        [eventId, accountId, String(n)],
      );
      if (statuses[n]) {
        await db.query(
          `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
           VALUES (gen_random_uuid(), $1, $2, $3, 'alarm.created', 'event', '\\x7b7d'::bytea, $4, CASE WHEN $4 = 'pending' THEN now() END)`,
          [accountId, endpoint.id, eventId, statuses[n]],
        );
      }
    }
    return endpoint;
  }

  it('balances: three events, delivered, failed and pending, the receiver saw the delivered one', async () => {
    const endpoint = await seed(['succeeded', 'failed', 'pending']);
    await expect(checkLedger(db, [endpoint], new Map([[receiverKey(endpoint.url), 1]]), 'test')).resolves.toMatch(/ledger balances: 1 endpoints: 3 owed/);
  });

  it('reports a delivery that was never recorded (fan-out lost an event) and fails', async () => {
    const endpoint = await seed(['succeeded', 'succeeded']);
    const check = checkLedger(db, [endpoint], new Map([[receiverKey(endpoint.url), 2]]), 'test');
    await expect(check).rejects.toBeInstanceOf(LedgerMismatch);
    await expect(check).rejects.toThrow(`endpoint ${endpoint.url}: 3 events committed ≠ 2 delivered + 0 failed + 0 cancelled + 0 pending (1 missing)`);
  });

  it('reports a delivery the database closed but the receiver never logged', async () => {
    const endpoint = await seed(['succeeded', 'succeeded', 'succeeded']);
    await expect(checkLedger(db, [endpoint], new Map([[receiverKey(endpoint.url), 2]]), 'test')).rejects.toThrow('the receiver logged 2 events, the database says 3 delivered (-1)');
  });
});
