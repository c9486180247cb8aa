import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery health per endpoint (issue 17): one row per endpoint and UTC hour with the attempts
 * that succeeded and failed and a latency histogram (log-spaced buckets, see
 * libs/webhooks/src/health.ts), written by the dispatcher in the statement that logs the attempt.
 * The attempt log itself keeps only the newest 100 attempts per endpoint, so a chart of 7 days
 * cannot be drawn from it. The hourly housekeeping deletes rows older than 8 days.
 */
export class WebhookEndpointHourlyStats1763771350000 implements MigrationInterface {
  name = 'WebhookEndpointHourlyStats1763771350000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoint_hourly_stats (
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL CHECK (extract(epoch FROM hour) % 3600 = 0),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        succeeded integer NOT NULL CHECK (succeeded >= 0),
        failed integer NOT NULL CHECK (failed >= 0),
        latency_buckets integer[] NOT NULL,
        max_duration_ms integer NOT NULL,
        PRIMARY KEY (endpoint_id, hour)
      )`);
    await q.query(
      `COMMENT ON COLUMN webhook_endpoint_hourly_stats.latency_buckets IS 'attempts per duration bucket: < 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000 ms, and the rest'`,
    );
    // The overview reads every endpoint of an account for the last 24 hours; housekeeping deletes by hour.
    await q.query(`CREATE INDEX webhook_endpoint_hourly_stats_account_idx ON webhook_endpoint_hourly_stats (account_id, hour)`);
    await q.query(`CREATE INDEX webhook_endpoint_hourly_stats_hour_idx ON webhook_endpoint_hourly_stats (hour)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_endpoint_hourly_stats`);
  }
}
