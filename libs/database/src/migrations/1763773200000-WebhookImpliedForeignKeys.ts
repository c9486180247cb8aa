import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the foreign keys of the delivery tables that another key already implies (issue 26: a
 * delivery costs close to what it must). Each one was a check on every row written: a lookup in
 * the parent table that also locks the parent row (FOR KEY SHARE), which writes to its page and to
 * the WAL and, while other transactions hold the same account's row, makes a multixact. Every
 * delivery paid five: its account and endpoint when fanned out, and its account, endpoint and
 * delivery when its attempt was logged; nearly all of them locked the same few account and
 * endpoint rows.
 *
 * Kept: `webhook_deliveries.endpoint_id` (the endpoint belongs to the account, and deleting it
 * deletes its deliveries) and `webhook_attempts.webhook_delivery_id` (deleting a delivery deletes
 * its attempts). Dropped, implied by those: `webhook_deliveries.account_id`, and
 * `webhook_attempts.account_id` and `.endpoint_id`. The rows keep both columns (tenancy filters and
 * the attempt log's index use them); the statements that write them copy them from the delivery's
 * endpoint (fan-out) or from the claimed delivery (attempts). Deleting an endpoint still deletes
 * its deliveries and, through them, their attempts; an account's endpoints go with the account.
 */
const DROPPED = [
  { table: 'webhook_deliveries', column: 'account_id', parent: 'accounts' },
  { table: 'webhook_attempts', column: 'account_id', parent: 'accounts' },
  { table: 'webhook_attempts', column: 'endpoint_id', parent: 'webhook_endpoints' },
] as const;

export class WebhookImpliedForeignKeys1763773200000 implements MigrationInterface {
  name = 'WebhookImpliedForeignKeys1763773200000';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, column } of DROPPED) await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_${column}_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, column, parent } of DROPPED) {
      await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_${column}_fkey FOREIGN KEY (${column}) REFERENCES ${parent}(id) ON DELETE CASCADE`);
    }
  }
}
