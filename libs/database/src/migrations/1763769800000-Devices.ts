import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Devices (platform-owned hardware facts, including the secrets and costs the public API never
 * shows), their ownership lifecycles (customer-owned label, settings and status live on the
 * lifecycle, so a new owner starts clean), and maintenance records.
 */
export class Devices1763769800000 implements MigrationInterface {
  name = 'Devices1763769800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE devices (
        id uuid PRIMARY KEY,
        serial_number text NOT NULL UNIQUE,
        model text NOT NULL,
        hardware_revision text,
        firmware_version text,
        imei text UNIQUE,
        sim_iccid text,
        sim_pin text,
        firmware_key text,
        approval_status text NOT NULL DEFAULT 'pending' CHECK (approval_status IN ('pending', 'approved', 'rejected')),
        approved_at timestamptz,
        approval_note text,
        purchase_cost numeric(12, 2),
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE device_lifecycles (
        id uuid PRIMARY KEY,
        device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        started_at timestamptz NOT NULL,
        ended_at timestamptz,
        label text,
        measurement_interval_s int NOT NULL DEFAULT 300 CHECK (measurement_interval_s BETWEEN 10 AND 86400),
        transmission_interval_s int NOT NULL DEFAULT 900 CHECK (transmission_interval_s BETWEEN 60 AND 86400),
        sensors jsonb NOT NULL DEFAULT '{"temperature": true, "humidity": true, "light": true, "shock": true, "location": true}',
        thresholds jsonb NOT NULL DEFAULT '{}',
        -- alert_presets belongs to the catalogue feature: validated by query, no foreign key.
        alert_preset_id uuid,
        last_seen_at timestamptz,
        battery real,
        battery_at timestamptz,
        latitude double precision,
        longitude double precision,
        location_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (ended_at IS NULL OR ended_at >= started_at)
      )`);
    await q.query(`CREATE UNIQUE INDEX device_lifecycles_one_open_idx ON device_lifecycles (device_id) WHERE ended_at IS NULL`);
    await q.query(`CREATE INDEX device_lifecycles_account_open_idx ON device_lifecycles (account_id, device_id) WHERE ended_at IS NULL`);
    await q.query(`CREATE INDEX device_lifecycles_device_idx ON device_lifecycles (device_id, started_at)`);
    await q.query(`
      CREATE TABLE device_maintenance_records (
        id uuid PRIMARY KEY,
        device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
        -- NULL: platform-side work between owners, visible to every later owner.
        lifecycle_id uuid REFERENCES device_lifecycles(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('maintenance', 'fault', 'repair', 'calibration')),
        performed_at timestamptz NOT NULL,
        summary text NOT NULL,
        details text,
        next_due_at timestamptz,
        cost_amount numeric(12, 2),
        cost_currency text,
        internal_notes text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX device_maintenance_records_device_idx ON device_maintenance_records (device_id, performed_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE device_maintenance_records`);
    await q.query(`DROP TABLE device_lifecycles`);
    await q.query(`DROP TABLE devices`);
  }
}
