import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';

export type SqlExecutor = DataSource | EntityManager;

export interface LegacySqlResult<T> {
  rows: T[];
  /** Rows inserted, updated, deleted or returned. */
  count: number;
}

/**
 * Plain SQL with one result shape for every command (TypeORM's `query` returns `[rows, count]`
 * for UPDATE/DELETE but bare rows otherwise). Inside a transaction pass its EntityManager.
 */
export async function execSql<T = Record<string, unknown>>(executor: SqlExecutor, text: string, params: unknown[] = []): Promise<LegacySqlResult<T>> {
  const existing: QueryRunner | undefined = executor instanceof DataSource ? undefined : executor.queryRunner;
  const runner = existing ?? (executor instanceof DataSource ? executor : executor.connection).createQueryRunner();
  try {
    const result = await runner.query(text, params, true);
    const rows = (result.records ?? []) as T[];
    return { rows, count: result.affected ?? rows.length };
  } finally {
    if (!existing) await runner.release();
  }
}
