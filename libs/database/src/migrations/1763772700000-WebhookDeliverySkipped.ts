import type { MigrationInterface, QueryRunner } from 'typeorm';

const STATUSES_BEFORE = `'pending', 'succeeded', 'failed', 'cancelled'`;

/**
 * Issue 31 item 1: an event whose type a disabled endpoint subscribes to gets a delivery row to it
 * with status `skipped` (not sent: the endpoint was disabled), closed at once, without a body. The
 * event log then lists the outage's events at their own time before any recovery, and a recovery
 * queues them like any other delivery that did not succeed. Down removes those rows: before this
 * migration such an event had no row for the endpoint, which recovery reads the same way.
 */
export class WebhookDeliverySkipped1763772700000 implements MigrationInterface {
  name = 'WebhookDeliverySkipped1763772700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check`);
    await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN (${STATUSES_BEFORE}, 'skipped')) NOT VALID`);
    // Checked without blocking writes: every row met the narrower check already.
    await q.query(`ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_status_check`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhook_deliveries WHERE status = 'skipped'`);
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check`);
    await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN (${STATUSES_BEFORE}))`);
  }
}
