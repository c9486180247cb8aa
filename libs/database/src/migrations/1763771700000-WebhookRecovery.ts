import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recovery after an outage ("recover failed deliveries since …", panel and `webhooks:recover`):
 *
 * - origin `recover`: a delivery queued again by a recovery for an event whose earlier deliveries to
 *   the endpoint failed or were cancelled (told apart from a hand `resend` in the attempt log and
 *   the event log). An event that never got a delivery to the endpoint (it was disabled at fan-out)
 *   gets the row the fan-out would have made, origin `event`, so the unique (event, endpoint)
 *   index makes a late fan-out of the same event a no-op.
 * - the indexes recovery reads by: an endpoint's deliveries by time, an account's events by time.
 *
 * The CHECK is replaced NOT VALID and then validated, so the table is not locked against writes
 * while existing rows are checked.
 */
export class WebhookRecovery1763771700000 implements MigrationInterface {
  name = 'WebhookRecovery1763771700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_origin_check`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_origin_check CHECK (origin IN ('event', 'test', 'resend', 'recover')) NOT VALID`,
    );
    await q.query(`ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_origin_check`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_created_idx ON webhook_deliveries (endpoint_id, created_at)`);
    await q.query(`CREATE INDEX outbox_events_account_created_idx ON outbox_events (account_id, created_at)`);
  }

  /** Recovered deliveries become hand resends (the closest older origin): nothing is lost. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_account_created_idx`);
    await q.query(`DROP INDEX webhook_deliveries_endpoint_created_idx`);
    await q.query(`UPDATE webhook_deliveries SET origin = 'resend' WHERE origin = 'recover'`);
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_origin_check`);
    await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_origin_check CHECK (origin IN ('event', 'test', 'resend'))`);
  }
}
