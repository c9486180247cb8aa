import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * A statement on the DataSource's own pg pool, without TypeORM's QueryRunner round trip through
 * JavaScript (create a runner, connect, broadcast before/after events, wrap the result, release):
 * for the reads every API request makes. Same pool and connections; rows as `dataSource.query`
 * returns them for a SELECT. Anything transactional goes through an EntityManager as before.
 */
export async function poolQuery<T>(dataSource: DataSource, sql: string, params: unknown[] = []): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master?: Pool } | undefined)?.master;
  if (!pool) return (await dataSource.query(sql, params)) as T[];
  return (await pool.query(sql, params)).rows as T[];
}
