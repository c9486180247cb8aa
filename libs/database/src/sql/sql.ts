import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatementsAllowed } from '../data-source';
import { readReplicaOf } from '../replica/read-replica';
import type { PlatformQuery, Query, TenantParams, TenantQuery } from './query';

/** Where a statement runs: the DataSource (pool), or a transaction's EntityManager. */
export type Db = DataSource | EntityManager;

export interface SqlResult<T> {
  rows: T[];
  /** Rows inserted, updated, deleted or returned. */
  count: number;
}

/** The data source's pg pool (the primary's), once initialised. */
export function poolOf(dataSource: DataSource): Pool | undefined {
  return (dataSource.driver as unknown as { master?: Pool } | undefined)?.master;
}

async function onPool<T>(pool: Pool, dataSource: DataSource, query: Query, params: readonly unknown[]): Promise<SqlResult<T>> {
  const result =
    query.prepared && preparedStatementsAllowed(dataSource)
      ? await pool.query({ name: `${query.owner}.${query.name}`, text: query.text, values: params as unknown[] })
      : await pool.query(query.text, params as unknown[]);
  return { rows: result.rows as T[], count: result.rowCount ?? result.rows.length };
}

/**
 * The one way the service runs SQL. Outside a transaction a statement goes straight to the
 * DataSource's pg pool (no QueryRunner round trip: create, connect, events, release); inside one
 * it runs on the transaction's connection. Every command answers the same shape (TypeORM's
 * `query` returns `[rows, count]` for UPDATE/DELETE but bare rows otherwise). A statement declared
 * `prepared` runs on the pool as a named prepared statement (pg prepares it once per connection);
 * inside a transaction it runs unnamed like the others, and so does every statement when the data
 * source's pool is behind a transaction pooler (`DB_PREPARED_STATEMENTS=false`). Outside a
 * transaction, a statement routed `replica` or `failover` may run on the read replica attached to
 * the data source (ReadReplica decides, per execution); a failed replica read is retried on the primary.
 */
async function execute<T>(db: Db, query: Query, params: readonly unknown[]): Promise<SqlResult<T>> {
  const { text } = query;
  const runner = db instanceof DataSource ? undefined : db.queryRunner;
  if (!runner) {
    const dataSource = db instanceof DataSource ? db : db.connection;
    const pool = poolOf(dataSource);
    if (pool) {
      const replica = query.route === 'primary' ? undefined : readReplicaOf(dataSource);
      const target = !replica ? 'primary' : query.route === 'replica' ? replica.targetForRead() : replica.targetForFailover();
      if (replica && target === 'replica') {
        try {
          const result = await onPool<T>(replica.pool, dataSource, query, params);
          replica.routed.replica += 1;
          return result;
        } catch (error) {
          // The replica is away or cancelled the read (conflict with recovery): the primary answers.
          replica.readFailed(error);
        }
      }
      if (replica) replica.routed.primary += 1;
      // A lag-tolerant read sent to the primary (the replica was not usable a moment ago) may also
      // be answered by a caught-up replica when the primary has just gone away.
      if (replica && (query.route === 'failover' || query.route === 'replica')) {
        try {
          return await onPool<T>(pool, dataSource, query, params);
        } catch (error) {
          // The primary just went away (before the next probe noticed): a caught-up replica answers.
          if (!(await replica.primaryFailed(error))) throw error;
          replica.routed.replica += 1;
          return onPool<T>(replica.pool, dataSource, query, params);
        }
      }
      return onPool<T>(pool, dataSource, query, params);
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

/** A platform statement on a pg pool that is no data source's (the read replica's probes). */
export async function rowsOnPool<T>(pool: Pool, query: PlatformQuery, params: readonly unknown[] = []): Promise<T[]> {
  return (await pool.query(query.text, params as unknown[])).rows as T[];
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
