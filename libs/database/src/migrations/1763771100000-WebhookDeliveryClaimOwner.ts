import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which dispatcher process holds a pending delivery's claim (lease). With several dispatcher
 * replicas, an account's deliveries are claimed by one process at a time (the one already holding
 * some), so the per-endpoint and per-account concurrency bounds, which each process enforces on
 * what it holds, hold for the whole fleet. Not indexed: the claim reads it only on rows it already
 * found through webhook_deliveries_due_idx, and setting or clearing it changes no index.
 */
export class WebhookDeliveryClaimOwner1763771100000 implements MigrationInterface {
  name = 'WebhookDeliveryClaimOwner1763771100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN claimed_by uuid`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN claimed_by`);
  }
}
