// globalSetup runs outside jest's module mapper: relative imports only.
import { loadConfig } from '../../libs/config/src';
import { migrateDatabase } from '../../libs/database/src';
import { createDatabase } from './database';
import { uniqueName } from './test-env';

/**
 * One database per test run, migrated up from empty (which is also the migrations' CI check), and
 * broker names of its own, so that concurrent runs never interfere.
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
  await migrateDatabase(loadConfig().databaseUrl);
}
