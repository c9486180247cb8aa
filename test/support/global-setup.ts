// globalSetup runs outside jest's module mapper: relative imports only.
import { Client } from 'pg';
import { loadConfig } from '../../libs/config/src';
import { migrateDatabase } from '../../libs/database/src/data-source';
import { createDatabase } from './database';
import { startPgBouncer, type PgBouncer } from './pgbouncer';
import { uniqueName } from './test-env';

/** The run's PgBouncer (TEST_VIA_PGBOUNCER=1), for globalTeardown (same process, another module instance). */
export const PGBOUNCER_GLOBAL = '__coldchainTestPgBouncer';

/**
 * One database per test run, migrated up from empty (which is also the migrations' CI check), and
 * broker names of its own, so that concurrent runs never interfere.
 *
 * TEST_VIA_PGBOUNCER=1 (`npm run test:pgbouncer`) puts a PgBouncer in transaction mode between the
 * apps and that database, configured as README "Behind PgBouncer" says: DATABASE_URL through the
 * pooler with DB_PREPARED_STATEMENTS=false and DB_SESSION_PARAMETERS=false, DATABASE_DIRECT_URL
 * for the migrations' lock and LISTEN, the statement bounds set on the database itself.
 */
export default async function globalSetup(): Promise<void> {
  const name = uniqueName('cc_test');
  process.env.TEST_DATABASE_NAME = name;
  process.env.DATABASE_URL = await createDatabase(name);
  process.env.AMQP_PREFIX = uniqueName('cc_test');
  process.env.NODE_ENV = 'test';
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
  // Suites that exercise the gateway queue start its consumer themselves.
  process.env.INGEST_CONSUMER = 'off';
  // Opening a PostgreSQL connection on a loaded 2-core machine can take seconds: the apps under test
  // get a generous pool-checkout deadline unless a suite sets the bound it is testing.
  process.env.DB_CONNECTION_TIMEOUT_MS ??= '30000';
  if (process.env.TEST_VIA_PGBOUNCER === '1') {
    const direct = process.env.DATABASE_URL;
    const bouncer: PgBouncer = await startPgBouncer();
    (globalThis as Record<string, unknown>)[PGBOUNCER_GLOBAL] = bouncer;
    const client = new Client({ connectionString: direct });
    await client.connect();
    // What the apps no longer send at connection start: the server applies it to every session.
    const { databaseTimeouts } = loadConfig();
    await client.query(`ALTER DATABASE "${name}" SET statement_timeout = ${databaseTimeouts.statementTimeoutMs}`);
    await client.query(`ALTER DATABASE "${name}" SET idle_in_transaction_session_timeout = ${databaseTimeouts.idleInTransactionTimeoutMs}`);
    await client.end();
    process.env.DATABASE_DIRECT_URL = direct;
    process.env.DATABASE_URL = bouncer.url(name);
    process.env.DB_PREPARED_STATEMENTS = 'false';
    process.env.DB_SESSION_PARAMETERS = 'false';
    process.stderr.write(`\n[pgbouncer] the apps reach ${name} through PgBouncer (transaction mode) on 127.0.0.1:${bouncer.port}\n`);
  }
  await migrateDatabase(loadConfig().databaseDirectUrl);
}
