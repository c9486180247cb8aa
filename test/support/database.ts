import { Client } from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl } from './test-env';

async function admin<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database of its own for a test run or a test suite. */
export async function createDatabase(name: string): Promise<string> {
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return databaseUrl(name);
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
