import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatementsAllowed } from '../data-source';
import type { PlatformQuery, Query, TenantParams, TenantQuery } from './query';

/** Where a statement runs: the DataSource (pool), or a transaction's EntityManager. */
export type Db = DataSource | EntityManager;

export interface SqlResult<T> {
  rows: T[];
  /** Rows inserted, updated, deleted or returned. */
  count: number;
}

function poolOf(dataSource: DataSource): Pool | undefined {
  return (dataSource.driver as unknown as { master?: Pool } | undefined)?.master;
}

/**
 * The one way the service runs SQL. Outside a transaction a statement goes straight to the
 * DataSource's pg pool (no QueryRunner round trip: create, connect, events, release); inside one
 * it runs on the transaction's connection. Every command answers the same shape (TypeORM's
 * `query` returns `[rows, count]` for UPDATE/DELETE but bare rows otherwise). A statement declared
 * `prepared` runs on the pool as a named prepared statement (pg prepares it once per connection);
 * inside a transaction it runs unnamed like the others, and so does every statement when the data
 * source's pool is behind a transaction pooler (`DB_PREPARED_STATEMENTS=false`).
 */
async function execute<T>(db: Db, query: Query, params: readonly unknown[]): Promise<SqlResult<T>> {
  const { text } = query;
  const runner = db instanceof DataSource ? undefined : db.queryRunner;
  if (!runner) {
    const dataSource = db instanceof DataSource ? db : db.connection;
    const pool = poolOf(dataSource);
    if (pool) {
      const result =
        query.prepared && preparedStatementsAllowed(dataSource)
          ? await pool.query({ name: `${query.owner}.${query.name}`, text, values: params as unknown[] })
          : await pool.query(text, params as unknown[]);
      return { rows: result.rows as T[], count: result.rowCount ?? result.rows.length };
    }
    const own = dataSource.createQueryRunner();
    try {
      const result = await own.query(text, params as unknown[], true);
      const rows = (result.records ?? []) as T[];
      return { rows, count: result.affected ?? rows.length };
    } finally {
      await own.release();
    }
  }
  const result = await runner.query(text, params as unknown[], true);
  const rows = (result.records ?? []) as T[];
  return { rows, count: result.affected ?? rows.length };
}

export function run<T = Record<string, unknown>>(db: Db, query: TenantQuery, params: TenantParams): Promise<SqlResult<T>>;
export function run<T = Record<string, unknown>>(db: Db, query: PlatformQuery, params?: readonly unknown[]): Promise<SqlResult<T>>;
export function run<T>(db: Db, query: TenantQuery | PlatformQuery, params: readonly unknown[] = []): Promise<SqlResult<T>> {
  return execute<T>(db, query, params);
}

export async function rows<T = Record<string, unknown>>(db: Db, query: TenantQuery, params: TenantParams): Promise<T[]>;
export async function rows<T = Record<string, unknown>>(db: Db, query: PlatformQuery, params?: readonly unknown[]): Promise<T[]>;
export async function rows<T>(db: Db, query: TenantQuery | PlatformQuery, params: readonly unknown[] = []): Promise<T[]> {
  return (await execute<T>(db, query, params)).rows;
}

/** The first row, or null. */
export async function first<T = Record<string, unknown>>(db: Db, query: TenantQuery, params: TenantParams): Promise<T | null>;
export async function first<T = Record<string, unknown>>(db: Db, query: PlatformQuery, params?: readonly unknown[]): Promise<T | null>;
export async function first<T>(db: Db, query: TenantQuery | PlatformQuery, params: readonly unknown[] = []): Promise<T | null> {
  return (await execute<T>(db, query, params)).rows[0] ?? null;
}

/** Rows changed (or returned) by the statement. */
export async function count(db: Db, query: TenantQuery, params: TenantParams): Promise<number>;
export async function count(db: Db, query: PlatformQuery, params?: readonly unknown[]): Promise<number>;
export async function count(db: Db, query: TenantQuery | PlatformQuery, params: readonly unknown[] = []): Promise<number> {
  return (await execute(db, query, params)).count;
}

/** What a library that runs its own SQL on a pg pool calls (`query({ name?, text, values })`). */
export interface PoolQueryClient {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * The data source's pg pool for a library that names its statements (rate-limiter-flexible):
 * behind a transaction pooler (`DB_PREPARED_STATEMENTS=false`) the names are dropped, so its
 * statements run unnamed like the service's own.
 */
export function poolQueryClient(dataSource: DataSource): PoolQueryClient {
  return {
    query: ({ name, text, values }) => {
      const pool = poolOf(dataSource);
      if (!pool) return Promise.reject(new Error('the data source has no pg pool (not initialised)'));
      return name !== undefined && preparedStatementsAllowed(dataSource) ? pool.query({ name, text, values }) : pool.query(text, values);
    },
  };
}
