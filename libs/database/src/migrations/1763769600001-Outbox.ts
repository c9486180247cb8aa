import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Outbox1763769600001 implements MigrationInterface {
  name = 'Outbox1763769600001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbox_events (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        event_type text NOT NULL,
        aggregate_type text NOT NULL,
        aggregate_id text NOT NULL,
        envelope jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_events_unpublished_idx ON outbox_events (seq) WHERE published_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE outbox_events`);
  }
}
