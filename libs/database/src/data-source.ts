import { DataSource, type DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** How long PostgreSQL work may wait; 0 disables a bound (migrations run without a statement bound). */
export interface DatabaseTimeouts {
  /** Waiting for a pooled connection (or a new one to open) before the query fails. */
  connectionTimeoutMs: number;
  /** PostgreSQL cancels any single statement running longer (`statement_timeout`). */
  statementTimeoutMs: number;
  /** PostgreSQL ends a session left idle inside an open transaction (`idle_in_transaction_session_timeout`). */
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectionTimeoutMs: 5000,
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 60_000,
};

/** node-postgres pool settings for the bounds (the last two are sent as session parameters). */
export function poolTimeouts(timeouts: DatabaseTimeouts): Record<string, number> {
  return {
    connectionTimeoutMillis: timeouts.connectionTimeoutMs,
    statement_timeout: timeouts.statementTimeoutMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
  };
}

export function dataSourceOptions(databaseUrl: string, poolSize = 10, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize, application_name: 'coldchain', ...poolTimeouts(timeouts) },
  };
}

export function createDataSource(databaseUrl: string, poolSize?: number, timeouts?: DatabaseTimeouts): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, poolSize, timeouts));
}

/** Arbitrary constant shared by every replica: the advisory lock that serialises migrations. */
const MIGRATION_LOCK_ID = 4_815_162_342;

/**
 * Runs pending migrations under a PostgreSQL advisory lock, so two replicas starting together
 * never race: the second waits, then finds nothing left to do.
 */
/** Needs a pool of at least two connections: one holds the lock while the migrations run. */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await runner.release();
  }
}

/** Opens a short-lived connection, applies pending migrations under the lock, closes it. */
export async function migrateDatabase(databaseUrl: string, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS): Promise<string[]> {
  // A migration may legitimately run long (an index on a big table): only the checkout is bounded.
  const dataSource = createDataSource(databaseUrl, 2, { ...timeouts, statementTimeoutMs: 0, idleInTransactionTimeoutMs: 0 });
  await dataSource.initialize();
  try {
    return await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
