import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 31 item 2: the attempt log says which deliveries a recovery queued. Origin `recover` says it
 * for events whose earlier deliveries failed; an event never given to the endpoint (it was disabled
 * at fan-out) is recovered as the row the fan-out would have made, origin `event`, and only this
 * flag tells it from an automatic delivery. Set by the recovery's INSERT alone: the fan-out and the
 * dispatcher's statements do not change. A constant default adds the column without a rewrite.
 */
export class WebhookDeliveryRecovered1763772500000 implements MigrationInterface {
  name = 'WebhookDeliveryRecovered1763772500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN recovered boolean NOT NULL DEFAULT false`);
  }

  /** Recovered fan-out rows read as automatic deliveries again (as before this migration). */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN recovered`);
  }
}
