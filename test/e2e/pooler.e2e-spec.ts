import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '@app/config';
import { createDataSource, MigrationLockLostError, PgListener, runMigrationsLocked, type SessionFeatures } from '@app/database';
import { writeOutboxEvent } from '@app/events';
import { trimAttemptLog } from '@app/webhooks/store/webhook-deliveries.repository';
import type { DataSource } from 'typeorm';
import { OutboxRelay } from '../../apps/api/src/outbox/outbox-relay';
import { startApi, type TestApi } from '../support/api';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer';
import { waitFor } from '../support/wait';

/**
 * What cannot go through PgBouncer in transaction mode, and the settings that keep it off the
 * pooled connections (README "Operations → Behind PgBouncer"). The pooler here resets every
 * server connection after each transaction (test/support/pgbouncer.ts), so each session feature
 * used through it fails every time: these tests fail as soon as something reaches the pooler
 * without its switch, and `npm run test:pgbouncer` runs the end-to-end suites through the same pooler.
 */
describe('behind PgBouncer in transaction mode', () => {
  const config = loadConfig();
  const databaseName = process.env.TEST_DATABASE_NAME as string;
  const POOLED: SessionFeatures = { preparedStatements: false, sessionParameters: false };
  let bouncer: PgBouncer;
  let pooledUrl: string;
  const opened: DataSource[] = [];

  const open = async (url: string, session: SessionFeatures, poolSize = 1): Promise<DataSource> => {
    const dataSource = createDataSource(url, poolSize, config.databaseTimeouts, session);
    opened.push(dataSource);
    return dataSource.initialize();
  };

  beforeAll(async () => {
    bouncer = await startPgBouncer();
    pooledUrl = bouncer.url(databaseName);
  }, 30_000);

  afterAll(async () => {
    for (const dataSource of opened) if (dataSource.isInitialized) await dataSource.destroy();
    await bouncer.stop();
  });

  it('refuses the statement bounds sent at connection start; DB_SESSION_PARAMETERS=false connects', async () => {
    await expect(open(pooledUrl, { preparedStatements: false, sessionParameters: true })).rejects.toThrow(/unsupported startup parameter: statement_timeout/);
    const pooled = await open(pooledUrl, POOLED);
    expect(await pooled.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('breaks a named prepared statement on its second use; DB_PREPARED_STATEMENTS=false runs it unnamed', async () => {
    const someEndpoint = ['00000000-0000-4000-8000-000000000001'];
    // trimAttemptLog is declared `prepared` (libs/webhooks/src/store/webhook-deliveries.queries.ts).
    const named = await open(pooledUrl, { preparedStatements: true, sessionParameters: false });
    await trimAttemptLog(named, someEndpoint);
    await expect(trimAttemptLog(named, someEndpoint)).rejects.toThrow(/prepared statement "webhook-deliveries.trimAttemptLog" does not exist/);

    const unnamed = await open(pooledUrl, POOLED);
    for (let i = 0; i < 3; i++) await expect(trimAttemptLog(unnamed, someEndpoint)).resolves.toBe(0);
  });

  it('refuses to migrate through the pooler (the advisory lock would not hold), and migrates over the direct connection', async () => {
    await expect(runMigrationsLocked(await open(pooledUrl, POOLED, 2))).rejects.toThrow(MigrationLockLostError);
    await expect(runMigrationsLocked(await open(config.databaseDirectUrl, POOLED, 2))).resolves.toEqual([]);
  });

  it('hears no NOTIFY through the pooler: LISTEN needs the direct connection', async () => {
    const channel = 'coldchain_pooler_test';
    const heard = { pooled: 0, direct: 0 };
    const listeners = [new PgListener(pooledUrl, channel, () => (heard.pooled += 1)), new PgListener(config.databaseDirectUrl, channel, () => (heard.direct += 1))];
    for (const listener of listeners) listener.start();
    try {
      // Each listener reports once when it has (re)connected.
      await waitFor('both listeners to connect', () => heard.pooled >= 1 && heard.direct >= 1);
      const notifier = new Client({ connectionString: config.databaseDirectUrl });
      await notifier.connect();
      await notifier.query(`NOTIFY ${channel}`);
      await notifier.end();
      await waitFor('the direct listener to hear it', () => heard.direct >= 2);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(heard.pooled).toBe(1);
    } finally {
      for (const listener of listeners) await listener.stop();
    }
  });

  describe('the api with the pooler settings', () => {
    let api: TestApi | null = null;
    afterEach(async () => {
      await api?.close();
      api = null;
    });

    /** Whether an outbox row written now is published without a poll (OUTBOX_POLL_INTERVAL_MS is a minute): only NOTIFY wakes the relay. */
    const publishedByNotify = async (directUrl: string): Promise<boolean> => {
      api = await startApi({
        DATABASE_URL: pooledUrl,
        DATABASE_DIRECT_URL: directUrl,
        DB_PREPARED_STATEMENTS: 'false',
        DB_SESSION_PARAMETERS: 'false',
        OUTBOX_POLL_INTERVAL_MS: '60000',
      });
      const dataSource = dataSourceOf(api.app);
      await api.app.get(OutboxRelay).waitUntilConnected();
      // The relay's first poll (at connect) is over before the row is written.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const accountId = await createAccount(dataSource, 'Pooler Co');
      const envelope = await dataSource.transaction((manager) =>
        writeOutboxEvent(manager, { accountId, type: 'alarm.created', aggregateType: 'alarm', aggregateId: 'pooler', data: { message: 'pooler' } }),
      );
      const published = async () => ((await dataSource.query('SELECT published_at FROM outbox_events WHERE id = $1', [envelope.id])) as Array<{ published_at: Date | null }>)[0].published_at !== null;
      return waitFor('the row to be published', published, 4000).catch(() => false);
    };

    it('serves through the pooler, and its outbox relay is woken over DATABASE_DIRECT_URL', async () => {
      expect(await publishedByNotify(config.databaseDirectUrl)).toBe(true);
      expect((await api!.raw.get('/health/ready')).status).toBe(200);
    });

    it('(control) with DATABASE_DIRECT_URL pointing at the pooler too, the relay never hears the NOTIFY', async () => {
      expect(await publishedByNotify(pooledUrl)).toBe(false);
    });
  });

  it('every LISTEN of the apps is given the direct connection (DATABASE_DIRECT_URL)', () => {
    const sources: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) sources.push(full);
      }
    };
    walk(join(process.cwd(), 'apps'));
    walk(join(process.cwd(), 'libs'));
    const listeners = sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/new PgListener\(([^,]+),/g)].map((m) => `${file}: ${m[1]}`));
    expect(listeners.length).toBeGreaterThanOrEqual(2);
    for (const listener of listeners) expect(listener).toMatch(/: options\.listenUrl$/);
    const listenUrls = sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/listenUrl: ([^,;\n]+),/g)].map((m) => `${file}: ${m[1]}`));
    expect(listenUrls.length).toBeGreaterThanOrEqual(2);
    for (const assignment of listenUrls) expect(assignment).toMatch(/: config\.databaseDirectUrl$/);
  });
});
