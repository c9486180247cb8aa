import { defineQueries } from '@app/database/sql';

/**
 * rate_limit_counters belongs to the shared rate limiters (shared-counter.ts): the only SQL
 * that touches it is rate-limiter-flexible's own upsert, so this family declares no statement.
 */
export const RATE_LIMIT_QUERIES = defineQueries({
  owner: 'rate-limits',
  tables: ['rate_limit_counters'],
});
