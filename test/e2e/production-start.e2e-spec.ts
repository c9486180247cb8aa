import { spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { loadConfig } from '@app/config';
import { schemaProblems } from '@app/events';
import { migrateDatabase, shippedMigrationNames } from '@app/database';
import { AppProcess, type BuiltApp, freePort } from '../support/app-process';
import { createDatabase, dropDatabase } from '../support/database';
import { uniqueName } from '../support/test-env';
import { waitFor } from '../support/wait';

/**
 * NODE_ENV=production: each app refuses at start what would fail later, one line per problem
 * (all of them), and a non-zero exit: 78 when a setting must change, 69 when a service did not
 * answer. The built apps run as child processes, as ops run them.
 */
describe('production start-up checks', () => {
  const databases: string[] = [];
  const running: AppProcess[] = [];

  afterAll(async () => {
    for (const app of running) await app.kill('SIGKILL');
    for (const name of databases) await dropDatabase(name);
  });

  /** A database of its own (the checks below break its schema on purpose). */
  const database = async (migrated: boolean): Promise<{ name: string; url: string }> => {
    const name = uniqueName('cc_prod_start');
    databases.push(name);
    const url = await createDatabase(name);
    if (migrated) await migrateDatabase(url);
    return { name, url };
  };

  /** A production environment that starts: real-looking secrets, every URL reachable. */
  const productionEnv = async (databaseUrl: string): Promise<NodeJS.ProcessEnv> => {
    const [port, opsPort, dispatcherPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const { DATABASE_DIRECT_URL: _direct, DB_PREPARED_STATEMENTS: _prepared, DB_SESSION_PARAMETERS: _session, ...inherited } = process.env;
    return {
      ...inherited,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      JWT_SIGNING_KEYS: 'k1:Qm9v3xR7tLp2ZcWd8YhNa4FsKe6GjU1oXb5',
      SECRETS_KEY: 'Vt5Rz8Lq2Xn7Bw4Ck9Jm3Hf6Dp1Gs0YaWe2',
      PORT: String(port),
      OPS_PORT: String(opsPort),
      DISPATCHER_PORT: String(dispatcherPort),
      STARTUP_CHECK_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'warn',
    };
  };

  /** Runs the app to its exit; its stderr lines. */
  const refused = async (app: BuiltApp, env: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: string[] }> => {
    const child = AppProcess.spawn(app, app, Number(env.PORT), env);
    running.push(child);
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([child.exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 60_000)))]);
    clearTimeout(timer);
    if (!exit) throw new Error(`${app} did not stop:\n${child.output()}`);
    const lines = child
      .output()
      .split('\n')
      .slice(1)
      .filter((line) => line.startsWith(`${app}: `));
    return { code: exit.code, lines };
  };

  let migrated: { name: string; url: string };
  beforeAll(async () => {
    migrated = await database(true);
  });

  describe.each<BuiltApp>(['api', 'dispatcher'])('%s', (app) => {
    it('lists every configuration problem, one line each: missing and placeholder secrets, URLs that do not parse', async () => {
      const env = await productionEnv(migrated.url);
      delete env.JWT_SIGNING_KEYS;
      const { code, lines } = await refused(app, {
        ...env,
        SECRETS_KEY: 'change-me-change-me-change-me-change-me-0002',
        AMQP_URL: 'rabbitmq:5672',
        REDIS_URL: 'http://redis:6379',
        SMTP_URL: 'mail.internal',
        DATABASE_DIRECT_URL: 'postgresql://coldchain:s3cret@',
      });
      expect(code).toBe(78);
      expect(lines).toEqual([
        `${app}: configuration error: NODE_ENV=production requires these settings: JWT_SIGNING_KEYS`,
        expect.stringMatching(new RegExp(`^${app}: configuration error: NODE_ENV=production refuses the placeholder or development value of SECRETS_KEY: set a random secret`)),
        expect.stringMatching(new RegExp(`^${app}: configuration error: DATABASE_DIRECT_URL is not a URL`)),
        expect.stringMatching(new RegExp(`^${app}: configuration error: AMQP_URL must be a URL of scheme amqp or amqps with a host`)),
        expect.stringMatching(new RegExp(`^${app}: configuration error: SMTP_URL is not a URL`)),
        expect.stringMatching(new RegExp(`^${app}: configuration error: REDIS_URL must be a redis:// or rediss:// URL`)),
      ]);
      expect(lines.join('\n')).not.toContain('s3cret');
    });

    it('names the database and the broker that do not answer within the deadline, both at once, without their passwords', async () => {
      const [closedDb, closedBroker] = await Promise.all([freePort(), freePort()]);
      const env = await productionEnv(`postgresql://coldchain:s3cret@127.0.0.1:${closedDb}/coldchain`);
      const { code, lines } = await refused(app, { ...env, AMQP_URL: `amqp://coldchain:s3cret@127.0.0.1:${closedBroker}` });
      expect(code).toBe(69);
      expect(lines.sort()).toEqual([
        expect.stringMatching(
          new RegExp(`^${app}: refusing to start: PostgreSQL at postgresql://\\*\\*\\*@127\\.0\\.0\\.1:${closedDb}/coldchain \\(DATABASE_URL\\) did not answer within 3000 ms: .*ECONNREFUSED.*; check DATABASE_URL`),
        ),
        expect.stringMatching(new RegExp(`^${app}: refusing to start: RabbitMQ at amqp://\\*\\*\\*@127\\.0\\.0\\.1:${closedBroker} \\(AMQP_URL\\) did not accept a connection within 3000 ms: .*ECONNREFUSED.*; check AMQP_URL`)),
      ]);
      expect(lines.join('\n')).not.toContain('s3cret');
    });
  });

  it('api: refuses a broker that answers but refuses its credentials', async () => {
    const env = await productionEnv(migrated.url);
    const { code, lines } = await refused('api', { ...env, AMQP_URL: 'amqp://guest:wrong-password@127.0.0.1:5672' });
    expect(code).toBe(69);
    expect(lines).toEqual([expect.stringMatching(/^api: refusing to start: RabbitMQ at amqp:\/\/\*\*\*@127\.0\.0\.1:5672 \(AMQP_URL\) did not accept a connection within 3000 ms: .*(ACCESS_REFUSED|403)/)]);
  });

  it('dispatcher: refuses DATABASE_DIRECT_URL when it does not answer, although DATABASE_URL does', async () => {
    const env = await productionEnv(migrated.url);
    const closed = await freePort();
    const { code, lines } = await refused('dispatcher', { ...env, DATABASE_DIRECT_URL: `postgresql://postgres@127.0.0.1:${closed}/x` });
    expect(code).toBe(69);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^dispatcher: refusing to start: PostgreSQL at postgresql://\\*\\*\\*@127\\.0\\.0\\.1:${closed}/x \\(DATABASE_DIRECT_URL\\) did not answer`))]);
  });

  it('api: refuses a schema newer than the build (a migration it does not ship)', async () => {
    const newer = await database(true);
    const client = new Client({ connectionString: newer.url });
    await client.connect();
    await client.query(`INSERT INTO migrations ("timestamp", name) VALUES (1999999999999, 'FromANewerBuild1999999999999')`);
    await client.end();
    const { code, lines } = await refused('api', await productionEnv(newer.url));
    expect(code).toBe(78);
    expect(lines).toEqual([expect.stringMatching(/^api: refusing to start: the database schema is newer than this build: it has migration FromANewerBuild1999999999999, which this build does not ship; /)]);
  });

  it('dispatcher: refuses an unmigrated schema when the migration step is left to ops (MIGRATE_ON_START=false)', async () => {
    const empty = await database(false);
    const { code, lines } = await refused('dispatcher', { ...(await productionEnv(empty.url)), MIGRATE_ON_START: 'false' });
    expect(code).toBe(78);
    const newest = shippedMigrationNames().slice(-1)[0];
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^dispatcher: refusing to start: the database schema is not migrated to this build: ${shippedMigrationNames().length} migration\\(s\\) not applied \\(.*${newest}\\); run the migration step`))]);

    // The migration step: the CLI applies them all; then the schema is this build's.
    const migrate = spawnSync(process.execPath, ['dist/apps/cli/src/main.js', 'db:migrate', '--json'], { env: { ...process.env, DATABASE_URL: empty.url, DATABASE_DIRECT_URL: '' }, encoding: 'utf8' });
    expect(migrate.status).toBe(0);
    expect((JSON.parse(migrate.stdout) as { applied: string[] }).applied.sort()).toEqual(shippedMigrationNames().sort());
    expect(await schemaProblems(loadConfig({ DATABASE_URL: empty.url }))).toEqual([]);
  });

  it.each<BuiltApp>(['api', 'dispatcher'])('%s: starts with a sound production configuration', async (app) => {
    const env = await productionEnv(migrated.url);
    const child = AppProcess.spawn(app, app, Number(app === 'api' ? env.OPS_PORT : env.DISPATCHER_PORT), env);
    running.push(child);
    await waitFor(`${app} to be ready`, async () => {
      if (!child.running) throw new Error(child.output());
      return (await child.status('/health/ready')) === 200;
    }, 60_000);
    const exit = await child.kill('SIGTERM');
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  }, 90_000);
});
