import { DataSource, type DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export function dataSourceOptions(databaseUrl: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize, application_name: 'coldchain' },
  };
}

export function createDataSource(databaseUrl: string, poolSize?: number): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, poolSize));
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
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  const dataSource = createDataSource(databaseUrl, 2);
  await dataSource.initialize();
  try {
    return await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
