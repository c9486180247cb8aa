import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 31 item 1: the event log lists an event at its own time, also when its only deliveries were
 * queued by a recovery after an outage (it then listed at the recovery's time, so a From/Until
 * filter over the outage found nothing). `event_at` is the event's time, set by the recovery's
 * INSERT alone (the fan-out's rows are queued at their event's time: NULL, read as created_at). The
 * log's keyset index moves to that time; a nullable column without a default adds no rewrite.
 */
export class WebhookDeliveryEventAt1763772600000 implements MigrationInterface {
  name = 'WebhookDeliveryEventAt1763772600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN event_at timestamptz`);
    await q.query(`CREATE INDEX webhook_deliveries_account_listed_idx ON webhook_deliveries (account_id, (coalesce(event_at, created_at)), id)`);
    await q.query(`DROP INDEX webhook_deliveries_account_created_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_deliveries_account_created_idx ON webhook_deliveries (account_id, created_at, id)`);
    await q.query(`DROP INDEX webhook_deliveries_account_listed_idx`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN event_at`);
  }
}
