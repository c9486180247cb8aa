import { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/** The one DataSource method the project's repositories call: `query(sql, params)` → rows. */
export interface SqlShim {
  query(sql: string, params?: unknown[]): Promise<unknown[]>;
}

/**
 * A bare `pg` pool presented as the DataSource that the project's repositories expect, so that
 * the baseline runs the project's SQL byte for byte without TypeORM, Nest or Express in the way.
 * Same pool size as the api's (dataSourceOptions: 10).
 */
export function sqlShim(databaseUrl: string, max = 10): { shim: SqlShim; dataSource: DataSource; pool: Pool } {
  const pool = new Pool({ connectionString: databaseUrl, max, application_name: 'coldchain-bench-baseline' });
  const shim: SqlShim & { manager?: SqlShim } = {
    query: async (sql, params) => (await pool.query(sql, params as unknown[])).rows as unknown[],
  };
  // Repositories default their EntityManager argument to `dataSource.manager`.
  shim.manager = shim;
  return { shim, dataSource: shim as unknown as DataSource, pool };
}
