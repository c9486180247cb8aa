import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Alarms belong to the device lifecycle in which they were raised. At most one unresolved alarm
 * per (lifecycle, type), enforced by a partial unique index. shipment_id has no foreign key:
 * the shipments table belongs to another feature.
 */
export class Alarms1763769800002 implements MigrationInterface {
  name = 'Alarms1763769800002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE alarms (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
        lifecycle_id uuid NOT NULL REFERENCES device_lifecycles(id) ON DELETE CASCADE,
        shipment_id integer,
        type text NOT NULL CHECK (type IN ('TEMPERATURE', 'HUMIDITY', 'LIGHT', 'SHOCK', 'BATTERY', 'GEOFENCE')),
        severity text NOT NULL CHECK (severity IN ('INFO', 'WARNING', 'CRITICAL')),
        source text NOT NULL CHECK (source IN ('THRESHOLD', 'GEOFENCE', 'DEVICE')),
        message text NOT NULL,
        -- recorded time of the point that raised it: identifies the excursion it belongs to.
        triggered_at timestamptz,
        geofence_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz,
        -- a human user id only; never the service account.
        resolved_by uuid
      )`);
    await q.query(`CREATE UNIQUE INDEX alarms_one_open_idx ON alarms (lifecycle_id, type) WHERE resolved_at IS NULL`);
    await q.query(`CREATE INDEX alarms_account_idx ON alarms (account_id, id)`);
    await q.query(`CREATE INDEX alarms_account_device_idx ON alarms (account_id, device_id, id)`);
    await q.query(`CREATE INDEX alarms_lifecycle_idx ON alarms (lifecycle_id, type, triggered_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE alarms`);
  }
}
