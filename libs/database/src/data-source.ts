import { DataSource, type DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { AUDIT_CONTEXT_OPTION, auditedPgDriver } from './audit/audited-pool';

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

/**
 * What a pooled connection may rely on beyond single statements and transactions. Both hold on a
 * direct connection; a transaction pooler (PgBouncer in transaction mode) hands each transaction
 * to any server connection, so neither survives it (README "Behind PgBouncer").
 */
export interface SessionFeatures {
  /** Statements declared `prepared` run as named prepared statements (parsed once per connection). */
  preparedStatements: boolean;
  /**
   * `statement_timeout` and `idle_in_transaction_session_timeout` are sent as startup parameters
   * (PgBouncer refuses them: `unsupported startup parameter`). Off: the server's settings apply
   * (`ALTER ROLE … SET statement_timeout = …`).
   */
  sessionParameters: boolean;
}

export const DIRECT_SESSION: SessionFeatures = { preparedStatements: true, sessionParameters: true };

/** node-postgres pool settings for the bounds (the last two are sent as session parameters unless `sessionParameters` is off). */
export function poolTimeouts(timeouts: DatabaseTimeouts, sessionParameters = true): Record<string, number> {
  return {
    connectionTimeoutMillis: timeouts.connectionTimeoutMs,
    ...(sessionParameters ? { statement_timeout: timeouts.statementTimeoutMs, idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs } : {}),
  };
}

/** Key of the pool options (TypeORM's `extra`, ignored by node-postgres) that carries `preparedStatements` to `sql`. */
const PREPARED_STATEMENTS_OPTION = 'coldchainPreparedStatements';

/** Whether statements declared `prepared` may run as named prepared statements on this data source's pool. */
export function preparedStatementsAllowed(dataSource: DataSource): boolean {
  return (dataSource.options.extra as Record<string, unknown> | undefined)?.[PREPARED_STATEMENTS_OPTION] !== false;
}

export function dataSourceOptions(
  databaseUrl: string,
  poolSize = 10,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  session: SessionFeatures = DIRECT_SESSION,
): DataSourceOptions {
  return {
    type: 'postgres',
    // The pool that hands each connection the caller's audit context (see AuditedPool).
    driver: auditedPgDriver,
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      application_name: 'coldchain',
      ...poolTimeouts(timeouts, session.sessionParameters),
      [PREPARED_STATEMENTS_OPTION]: session.preparedStatements,
      // The audit context is a session setting: it needs the same one-session-per-checkout as prepared statements.
      [AUDIT_CONTEXT_OPTION]: session.preparedStatements,
    },
  };
}

export function createDataSource(databaseUrl: string, poolSize?: number, timeouts?: DatabaseTimeouts, session?: SessionFeatures): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, poolSize, timeouts, session));
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
    // A session lock needs one server session from lock to unlock. Through a transaction pooler
    // the next statement may reach another session (or the pooler resets this one): the lock would
    // serialise nothing, so the migrations refuse to run instead of racing another replica.
    const held = (await runner.query(
      `SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1`,
      [MIGRATION_LOCK_ID],
    )) as Array<{ held: number }>;
    if (held[0]?.held !== 1) {
      throw new MigrationLockLostError(
        'the migrations\' advisory lock did not stay with its database session: the connection goes through a transaction pooler (PgBouncer in transaction mode); set DATABASE_DIRECT_URL to a direct PostgreSQL connection',
      );
    }
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

/** Migrations refused because their lock cannot hold (a transaction pooler between them and PostgreSQL). */
export class MigrationLockLostError extends Error {}

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
