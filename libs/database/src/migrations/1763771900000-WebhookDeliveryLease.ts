import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A dispatcher's claim on a delivery becomes a lease in its own column, `lease_until`, outside
 * every index, instead of pushing `next_attempt_at` (indexed by the due-deliveries index) ahead.
 * Claims, hand-backs and deferrals then change no indexed column and are HOT updates: no new
 * index entries, and the row version stays on its page. `fillfactor = 70` leaves room on the
 * table's pages for those in-page versions (new pages only; existing ones fill as before).
 * Autovacuum visits the table once 2 % of it is dead rather than the default 20 %: every closed
 * delivery leaves a dead entry in the due-deliveries index that each claim steps over until a
 * vacuum removes it, and a long history table would otherwise let thousands pile up.
 * A delivery is due when `status = 'pending'`, `next_attempt_at <= now()` and its lease, if any,
 * has run out.
 */
export class WebhookDeliveryLease1763771900000 implements MigrationInterface {
  name = 'WebhookDeliveryLease1763771900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN lease_until timestamptz`);
    await q.query(
      `COMMENT ON COLUMN webhook_deliveries.lease_until IS 'a dispatcher holds the pending delivery until then (claimed, or handed back for later); NULL: not leased'`,
    );
    await q.query(`ALTER TABLE webhook_deliveries SET (fillfactor = 70, autovacuum_vacuum_scale_factor = 0.02)`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The previous schema's lease is next_attempt_at itself: a running lease keeps the delivery out of reach as long.
    await q.query(
      `UPDATE webhook_deliveries SET next_attempt_at = lease_until
        WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > next_attempt_at`,
    );
    await q.query(`ALTER TABLE webhook_deliveries RESET (fillfactor, autovacuum_vacuum_scale_factor)`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN lease_until`);
  }
}
