import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints, their deliveries (one per event and endpoint, retried durably through
 * `next_attempt_at`) and the attempt log; plus the outbox index the relay needs to keep
 * per-aggregate order when several replicas publish at once.
 */
export class Webhooks1763769900000 implements MigrationInterface {
  name = 'Webhooks1763769900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        description text,
        secret_ciphertext text NOT NULL,
        secret_rotated_at timestamptz,
        enabled boolean NOT NULL DEFAULT true,
        consecutive_failures integer NOT NULL DEFAULT 0,
        disabled_at timestamptz,
        disabled_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, id)`);

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        origin text NOT NULL CHECK (origin IN ('event', 'test', 'resend')),
        body bytea NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_attempt_at timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CONSTRAINT webhook_deliveries_schedule_check CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
      )`);
    // Fan-out is idempotent under redelivery; hand resends and test events are extra rows.
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_endpoint_uq ON webhook_deliveries (event_id, endpoint_id) WHERE origin = 'event'`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (account_id, event_id)`);

    await q.query(`
      CREATE TABLE webhook_attempts (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        webhook_delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        attempt_number integer NOT NULL,
        attempted_at timestamptz NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('succeeded', 'retry', 'failed')),
        status_code integer,
        error text,
        duration_ms integer NOT NULL
      )`);
    await q.query(`COMMENT ON COLUMN webhook_attempts.id IS 'the X-Service-Delivery-ID sent with this attempt'`);
    await q.query(`CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at DESC, id DESC)`);
    await q.query(`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (webhook_delivery_id)`);

    await q.query(
      `CREATE INDEX outbox_events_unpublished_aggregate_idx ON outbox_events (aggregate_type, aggregate_id, seq) WHERE published_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_unpublished_aggregate_idx`);
    await q.query(`DROP TABLE webhook_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_endpoints`);
  }
}
