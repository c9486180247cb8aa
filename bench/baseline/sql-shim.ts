import { Pool } from 'pg';
import { DataSource } from 'typeorm';

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
  const shim: SqlShim = {
    query: async (sql, params) => (await pool.query(sql, params as unknown[])).rows as unknown[],
  };
  // The project's SQL helper runs statements on a DataSource's pg pool (`driver.master`): a
  // DataSource object that has only that pool runs the same statements without TypeORM.
  const dataSource = Object.create(DataSource.prototype) as DataSource;
  Object.defineProperty(dataSource, 'driver', { value: { master: pool } });
  // Statements declared `prepared` run named on the shim's pool too, as on the api's (a direct connection).
  Object.defineProperty(dataSource, 'options', { value: { extra: {} } });
  // Repositories default their EntityManager argument to `dataSource.manager`.
  Object.defineProperty(dataSource, 'manager', { value: { connection: dataSource } });
  Object.defineProperty(dataSource, 'query', { value: shim.query });
  return { shim, dataSource, pool };
}
