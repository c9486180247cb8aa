import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which dispatcher process serves an account's webhook deliveries. With several dispatcher
 * replicas one process at a time serves an account, so the per-endpoint and per-account
 * concurrency bounds, which each process enforces on its own attempts, hold for the whole fleet.
 * A row is written by the claim that takes the account (and renewed by each later claim), deleted
 * when the process no longer holds anything of the account, and ignored once `until` has passed
 * (the process died: its claims' lease has run out too). One row per recently served account;
 * `worker_id` and `until` are not indexed, so renewals are HOT updates.
 */
export class WebhookClaimOwners1763771100000 implements MigrationInterface {
  name = 'WebhookClaimOwners1763771100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_claim_owners (
        account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
        worker_id uuid NOT NULL,
        until timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_claim_owners`);
  }
}
