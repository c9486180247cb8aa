import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counters of the people-facing rate limits (panel sign-in, panel POSTs, per-company webhook work,
 * invitations), shared by every api replica so that a limit — "5 password checks per e-mail
 * address" above all — holds for the cluster, not per process. The shape is the one
 * rate-limiter-flexible's RateLimiterPostgres reads and writes (one atomic upsert per attempt);
 * `key` is text, not the library's varchar(255), because a key holds an e-mail address.
 * `expire` is epoch milliseconds; expired rows are deleted by the library's own sweep.
 */
export class RateLimitCounters1763770600000 implements MigrationInterface {
  name = 'RateLimitCounters1763770600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE rate_limit_counters (key text PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
    await q.query(`CREATE INDEX rate_limit_counters_expire ON rate_limit_counters (expire)`);
  }

  /** Counters are transient: dropping them only resets the current windows. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limit_counters`);
  }
}
