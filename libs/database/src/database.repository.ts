import { DATABASE_QUERIES as Q } from './database.queries';
import type { Pool } from 'pg';
import { sql, type Db } from './sql';

/** Readiness: the pool hands out a connection and PostgreSQL answers. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql.run(db, Q.ping);
}

/** Whether an account (a tenant, of any status or kind) with this id exists. */
export async function accountExists(db: Db, accountId: string): Promise<boolean> {
  return (await sql.first(db, Q.accountExists, [accountId])) !== null;
}

/** Names of the migrations recorded as applied (TypeORM's `migrations` table; none before the first migration made it). */
export async function appliedMigrationNames(db: Db): Promise<string[]> {
  try {
    return (await sql.rows<{ name: string }>(db, Q.appliedMigrations)).map((row) => row.name);
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return []; // undefined_table
    throw error;
  }
}

/** The primary's current WAL position (pg_lsn as text). */
export async function walPosition(pool: Pool): Promise<string> {
  const [row] = await sql.rowsOnPool<{ lsn: string }>(pool, Q.walPosition);
  return row.lsn;
}

export interface ReplayPosition {
  recovery: boolean;
  replayed: string | null;
  received: string | null;
}

/** A standby's replayed and received WAL positions (`recovery` false: not a standby). */
export async function replayPosition(pool: Pool): Promise<ReplayPosition> {
  const [row] = await sql.rowsOnPool<ReplayPosition>(pool, Q.replayPosition);
  return row;
}
