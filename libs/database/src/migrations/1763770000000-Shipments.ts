import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shipments (integer ids, spec §2.1), the devices attached to them over time, and the geofence
 * events recorded for them.
 *
 * Catalogue references (locations, carriers, receivers, alert presets, templates) have no foreign
 * keys on purpose: only an ACTIVE shipment keeps a catalogue record from being deleted (the API's
 * in-use checks), while a completed shipment's history must outlive the records it pointed at.
 * Writers check the references inside the tenant under FOR KEY SHARE, like shipment templates.
 *
 * A deleted (never completed) shipment keeps its row with `deleted_at` set, so that alarms
 * raised while it travelled still name a shipment id that is never reused.
 *
 * `shipment_devices` holds one row per attachment: `detached_at IS NULL` means "attached to an
 * active shipment", and the partial unique index makes "not in another active shipment" a
 * database guarantee that concurrent creates cannot break. Completing a shipment sets
 * `detached_at` to the completion moment, which freezes the tracking window.
 */
export class Shipments1763770000000 implements MigrationInterface {
  name = 'Shipments1763770000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE shipments (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        reference text NOT NULL,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed')),
        template_id uuid,
        origin_location_id uuid NOT NULL,
        destination_location_id uuid NOT NULL,
        carrier_id uuid,
        receiver_id uuid,
        alert_preset_id uuid,
        planned_departure_at timestamptz,
        planned_arrival_at timestamptz,
        transport_legs jsonb NOT NULL DEFAULT '[]',
        started_at timestamptz NOT NULL,
        arrived_at timestamptz,
        completed_at timestamptz,
        completed_by text CHECK (completed_by IN ('api', 'geofence')),
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
        CHECK (deleted_at IS NULL OR status = 'active'),
        CHECK (planned_departure_at IS NULL OR planned_arrival_at IS NULL OR planned_arrival_at > planned_departure_at),
        UNIQUE (account_id, id)
      )`);
    await q.query(`CREATE INDEX shipments_account_idx ON shipments (account_id, id) WHERE deleted_at IS NULL`);
    // In-use checks of the catalogue look for active shipments by each referenced column.
    for (const column of ['template_id', 'origin_location_id', 'destination_location_id', 'carrier_id', 'receiver_id', 'alert_preset_id']) {
      await q.query(`CREATE INDEX shipments_active_${column}_idx ON shipments (account_id, ${column}) WHERE status = 'active' AND deleted_at IS NULL`);
    }
    await q.query(`CREATE INDEX shipments_active_legs_idx ON shipments USING gin (transport_legs jsonb_path_ops) WHERE status = 'active' AND deleted_at IS NULL`);

    await q.query(`
      CREATE TABLE shipment_devices (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        shipment_id integer NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        device_id uuid NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
        -- the ownership in which the device travelled: tracking reads only its points
        lifecycle_id uuid NOT NULL REFERENCES device_lifecycles(id) ON DELETE CASCADE,
        attached_at timestamptz NOT NULL,
        detached_at timestamptz,
        CHECK (detached_at IS NULL OR detached_at >= attached_at)
      )`);
    await q.query(`CREATE UNIQUE INDEX shipment_devices_one_active_idx ON shipment_devices (device_id) WHERE detached_at IS NULL`);
    await q.query(`CREATE INDEX shipment_devices_shipment_idx ON shipment_devices (shipment_id, attached_at)`);

    await q.query(`
      CREATE TABLE shipment_events (
        id uuid PRIMARY KEY,
        shipment_id integer NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('geofence_entry', 'geofence_exit', 'arrival')),
        location_id uuid,
        device_id uuid,
        recorded_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX shipment_events_shipment_idx ON shipment_events (shipment_id, recorded_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE shipment_events`);
    await q.query(`DROP TABLE shipment_devices`);
    await q.query(`DROP TABLE shipments`);
  }
}
