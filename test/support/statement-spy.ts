import type { DataSource } from 'typeorm';
import type { Query } from '@app/database/sql';

type PoolQuery = (...args: unknown[]) => unknown;

export interface StatementSpy {
  /** The parameters of each run of the statement, in order. */
  readonly calls: unknown[][];
  /** The prepared statement's name of each run (null: unnamed), in order. */
  readonly names: Array<string | null>;
  restore(): void;
}

/**
 * Records every run of `query` on the data source's pg pool (named prepared or unnamed), the way
 * the SQL helper runs a statement outside a transaction: counts round trips of one statement.
 */
export function spyOnStatement(dataSource: DataSource, query: Query): StatementSpy {
  const pool = (dataSource.driver as unknown as { master: { query: PoolQuery } }).master;
  const original = pool.query;
  const calls: unknown[][] = [];
  const names: Array<string | null> = [];
  pool.query = function (this: unknown, ...args: unknown[]): unknown {
    const [first, second] = args;
    if (typeof first === 'object' && first !== null && (first as { text?: unknown }).text === query.text) {
      calls.push([...((first as { values?: unknown[] }).values ?? [])]);
      names.push((first as { name?: string }).name ?? null);
    } else if (first === query.text) {
      calls.push([...((second as unknown[] | undefined) ?? [])]);
      names.push(null);
    }
    return original.apply(this, args);
  };
  return {
    calls,
    names,
    restore: () => {
      pool.query = original;
    },
  };
}
