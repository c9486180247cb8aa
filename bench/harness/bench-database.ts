import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, runMigrationsLocked } from '@app/database';
import type { Cleanup } from './cleanup';

export const DEFAULT_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

export const uniqueName = (prefix: string): string => `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

/** One short-lived client of `adminUrl` for `run`. */
export async function withAdmin<T>(adminUrl: string, run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  return databaseUrl(adminUrl, name);
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export async function serverVersion(adminUrl: string): Promise<string> {
  return withAdmin(adminUrl, async (c) => ((await c.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]?.v ?? 'unknown'));
}

/** The harness's own TypeORM connection: migrations, seeding and outbox writes. */
export async function openMigrated(url: string): Promise<DataSource> {
  // 16: event-latency commits 100 transactions a second, each waiting for its WAL flush on the own cluster.
  const dataSource = createDataSource(url, 16);
  await dataSource.initialize();
  await runMigrationsLocked(dataSource);
  return dataSource;
}

/**
 * The run's own database, created and migrated, and dropped by `cleanup` (the harness connection
 * closed first): the start of every bench run.
 */
export async function createRunDatabase(
  adminUrl: string,
  prefix: string,
  cleanup: Cleanup,
  log: (message: string) => void,
): Promise<{ databaseName: string; databaseUrl: string; db: DataSource }> {
  const databaseName = uniqueName(prefix);
  const databaseUrl = await createDatabase(adminUrl, databaseName);
  cleanup.add(`drop database ${databaseName}`, () => dropDatabase(adminUrl, databaseName));
  log(`database ${databaseName}: migrating`);
  const db = await openMigrated(databaseUrl);
  cleanup.add('close the harness connection', () => db.destroy());
  return { databaseName, databaseUrl, db };
}
