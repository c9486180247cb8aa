import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bounded webhook history: the body of a closed delivery may be deleted after
 * WEBHOOK_RETENTION_DAYS (the row stays while the attempt log still points at it), and an index
 * lets the hourly housekeeping find old closed deliveries without reading the table. A pending
 * delivery always keeps its body: the dispatcher sends it.
 */
export class WebhookDeliveryRetention1763770300000 implements MigrationInterface {
  name = 'WebhookDeliveryRetention1763770300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ALTER COLUMN body DROP NOT NULL`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pending_body_check CHECK (status <> 'pending' OR body IS NOT NULL)`,
    );
    await q.query(`COMMENT ON COLUMN webhook_deliveries.body IS 'the exact bytes sent; NULL once deleted after WEBHOOK_RETENTION_DAYS'`);
    await q.query(`CREATE INDEX webhook_deliveries_completed_idx ON webhook_deliveries (completed_at) WHERE status <> 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_completed_idx`);
    await q.query(`COMMENT ON COLUMN webhook_deliveries.body IS NULL`);
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pending_body_check`);
    // Pruned bodies cannot come back: an empty body keeps the row (and its attempt log) under NOT NULL.
    await q.query(`UPDATE webhook_deliveries SET body = ''::bytea WHERE body IS NULL`);
    await q.query(`ALTER TABLE webhook_deliveries ALTER COLUMN body SET NOT NULL`);
  }
}
