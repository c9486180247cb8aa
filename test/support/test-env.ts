import { randomBytes } from 'node:crypto';

/** The server the tests use: the machine's PostgreSQL unless TEST_POSTGRES_URL says otherwise. */
export const ADMIN_DATABASE_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export const uniqueName = (prefix: string): string => `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
