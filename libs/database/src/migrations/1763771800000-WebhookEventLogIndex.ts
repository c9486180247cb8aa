import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The panel's webhook event log lists an account's events newest first with keyset paging over
 * (created_at, id) of their first deliveries: this index makes each page a range scan of the
 * account's deliveries from the page's position instead of a sort of all of them.
 */
export class WebhookEventLogIndex1763771800000 implements MigrationInterface {
  name = 'WebhookEventLogIndex1763771800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_deliveries_account_created_idx ON webhook_deliveries (account_id, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_account_created_idx`);
  }
}
