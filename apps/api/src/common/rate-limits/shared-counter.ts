import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import { sql } from '@app/database';

/** The table of migration RateLimitCounters (the library's SQL is the only SQL that touches it). */
export const RATE_LIMIT_TABLE = 'rate_limit_counters';

/**
 * A fixed-window counter shared by every api replica: rate-limiter-flexible's RateLimiterPostgres
 * on the app's own pool, one atomic `INSERT … ON CONFLICT DO UPDATE … RETURNING` per consume, so
 * parallel requests — on one replica or several — each get a distinct count. Should PostgreSQL
 * fail, an in-process counter with the same budget takes over (the library's insurance limiter)
 * rather than letting every request through or failing them all. For the people-facing limits
 * only (a few requests per person); the per-credential API limit stays in memory (hot path).
 */
export function sharedCounter(dataSource: DataSource, keyPrefix: string, points: number, durationSeconds: number): RateLimiterAbstract {
  return new RateLimiterPostgres({
    // The data source's pool, through which the library's named statements run unnamed behind a
    // transaction pooler (DB_PREPARED_STATEMENTS=false).
    storeClient: sql.poolQueryClient(dataSource),
    storeType: 'pool',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true, // created by the migration, never by the library
    keyPrefix,
    points,
    duration: durationSeconds,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${keyPrefix}-insurance`, points, duration: durationSeconds }),
  });
}
