import { DATABASE_QUERIES as Q } from './database.queries';
import { sql, type Db } from './sql';

/** Readiness: the pool hands out a connection and PostgreSQL answers. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql.run(db, Q.ping);
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
