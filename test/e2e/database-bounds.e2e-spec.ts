import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, type DatabaseTimeouts } from '@app/database';
import { loadConfig } from '@app/config';
import { isDatabaseUnavailable } from '../../apps/api/src/common/database-unavailable';
import { API, startApi, type TestApi } from '../support/api';
import { createTenant, type Tenant } from '../support/fixtures';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The bounds under test are tight; opening a connection is not under test and gets a generous
 * deadline of its own, so a loaded machine (slow backend start-up) cannot fail a set-up step.
 */
const SETUP_CONNECT_MS = 15_000;
const TIGHT: DatabaseTimeouts = { connectionTimeoutMs: SETUP_CONNECT_MS, statementTimeoutMs: 300, idleInTransactionTimeoutMs: 300 };

/** Tightens the wait for a pooled connection once the pool's connections are open. */
function boundPoolWait(db: DataSource, ms: number): void {
  const pool = (db.driver as unknown as { master: { options: { connectionTimeoutMillis: number } } }).master;
  pool.options.connectionTimeoutMillis = ms;
}

/** Every wait on PostgreSQL is bounded: a stalled database is a 503 the client may retry, never a hang or a 500. */
describe('bounded waits on PostgreSQL', () => {
  const databaseUrl = loadConfig().databaseUrl;

  describe('the pool settings reach every session', () => {
    it('cancels a statement running past statement_timeout', async () => {
      const db = createDataSource(databaseUrl, 1, TIGHT);
      await db.initialize();
      try {
        const error = await db.query('SELECT pg_sleep(5)').then(() => null, (e: unknown) => e);
        expect(error).toMatchObject({ driverError: { code: '57014' } });
        expect(isDatabaseUnavailable(error)).toBe(true);
      } finally {
        await db.destroy();
      }
    });

    it('ends a session left idle inside an open transaction', async () => {
      const db = createDataSource(databaseUrl, 2, TIGHT);
      await db.initialize();
      const runner = db.createQueryRunner();
      try {
        await runner.startTransaction();
        const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
        await sleep(1200);
        const [{ alive }] = (await db.query('SELECT count(*)::int AS alive FROM pg_stat_activity WHERE pid = $1', [pid])) as Array<{ alive: number }>;
        expect(alive).toBe(0); // the server ended the session and with it the transaction's locks
        const error = await runner.query('SELECT 1').then(() => null, (e: unknown) => e);
        expect(isDatabaseUnavailable(error)).toBe(true);
      } finally {
        await runner.release().catch(() => undefined);
        await db.destroy();
      }
    });

    it('gives up waiting for a pooled connection after connectionTimeoutMillis', async () => {
      const db = createDataSource(databaseUrl, 1, TIGHT);
      await db.initialize();
      const holder = db.createQueryRunner();
      try {
        await holder.connect(); // the pool's one connection, opened under the generous set-up deadline
        boundPoolWait(db, 300);
        const started = Date.now();
        const error = await db.query('SELECT 1').then(() => null, (e: unknown) => e);
        expect(error).not.toBeNull();
        expect(isDatabaseUnavailable(error)).toBe(true);
        expect(Date.now() - started).toBeLessThan(5000); // a hang guard, not a speed target
      } finally {
        await holder.release();
        await db.destroy();
      }
    });
  });

  describe('the api under a stalled database', () => {
    let api: TestApi;
    let tenant: Tenant;
    let locker: Client;

    beforeAll(async () => {
      // The lock held below makes the stall; statements are bounded at 1.5 s. Connections open under
      // a generous deadline: waiting for a free pooled one is not what this case tests.
      api = await startApi({ DB_STATEMENT_TIMEOUT_MS: '1500', DB_CONNECTION_TIMEOUT_MS: String(SETUP_CONNECT_MS) });
      tenant = await createTenant(api.app);
      locker = new Client({ connectionString: databaseUrl });
      await locker.connect();
    });

    afterAll(async () => {
      await locker.end();
      await api.close();
    });

    it('answers 503 service_unavailable with Retry-After while a table is locked, then recovers', async () => {
      await api.raw.get(`${API}/devices/`).set(tenant.auth).expect(200);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE devices IN ACCESS EXCLUSIVE MODE');
      try {
        const started = Date.now();
        const answers = await Promise.all(Array.from({ length: 14 }, () => api.raw.get(`${API}/devices/`).set(tenant.auth)));
        expect(Date.now() - started).toBeLessThan(10_000); // a hang guard, not a speed target
        for (const res of answers) {
          expect(res.status).toBe(503);
          expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
          expect(res.headers['retry-after']).toBe('1');
          expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable' });
        }
      } finally {
        await locker.query('ROLLBACK');
      }
      await api.raw.get(`${API}/devices/`).set(tenant.auth).expect(200);
    });
  });
});
