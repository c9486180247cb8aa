import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-endpoint and per-account delivery bounds held in the database (issue 26, item 3), instead
 * of one dispatcher at a time serving an account (`webhook_claim_owners`, dropped):
 *
 * - `webhook_dispatchers`: each live dispatcher process, renewed by each of its claims; a process
 *   whose `until` has passed died (its claims' lease has run out too), and removing its row
 *   removes its grants.
 * - `webhook_slot_grants`: how many of an endpoint's (scope 'endpoint') or an account's (scope
 *   'account') concurrent attempts a process may make. Claims are serialised, and each claim
 *   grants at most what the other live processes leave free of `WEBHOOK_CONCURRENCY_PER_ENDPOINT`
 *   / `_PER_ACCOUNT`, so the grants of every process together never exceed the bounds, while any
 *   process may serve any account. A process drops a grant when it holds nothing of its key.
 *
 * Both tables are small (live processes; keys with deliveries in hand). Down recreates the owners
 * table empty (ownership is rebuilt by the next claims).
 */
export class WebhookSlotGrants1763772400000 implements MigrationInterface {
  name = 'WebhookSlotGrants1763772400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_dispatchers (
        worker_id uuid PRIMARY KEY,
        until timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE webhook_slot_grants (
        worker_id uuid NOT NULL REFERENCES webhook_dispatchers (worker_id) ON DELETE CASCADE,
        scope text NOT NULL CONSTRAINT webhook_slot_grants_scope_check CHECK (scope IN ('endpoint', 'account')),
        key uuid NOT NULL,
        slots int NOT NULL CONSTRAINT webhook_slot_grants_slots_check CHECK (slots > 0),
        PRIMARY KEY (worker_id, scope, key)
      )`);
    await q.query(`DROP TABLE webhook_claim_owners`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_claim_owners (
        account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
        worker_id uuid NOT NULL,
        until timestamptz NOT NULL
      )`);
    await q.query(`DROP TABLE webhook_slot_grants`);
    await q.query(`DROP TABLE webhook_dispatchers`);
  }
}
