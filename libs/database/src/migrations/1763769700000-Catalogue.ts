import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalogue records of a tenant. `UNIQUE (account_id, id)` lets shipment templates reference them
 * with composite foreign keys, so a template can only ever point at records of its own account.
 * Transport legs are jsonb; their references are checked by the API and found with the GIN index.
 */
export class Catalogue1763769700000 implements MigrationInterface {
  name = 'Catalogue1763769700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE locations (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('warehouse', 'port', 'airport', 'customer_site', 'distribution_center', 'other')),
        address_line1 text, address_line2 text, city text, region text, postal_code text, country text,
        geofence jsonb NOT NULL CHECK (geofence->>'type' IN ('circle', 'polygon')),
        automation jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, id)
      )`);
    await q.query(`
      CREATE TABLE carriers (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('road', 'sea', 'air', 'rail', 'multimodal')),
        contact_name text, contact_email text, contact_phone text,
        scac text, iata_code text, mmsi text, imo text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, id)
      )`);
    await q.query(`
      CREATE TABLE receivers (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        address_line1 text, address_line2 text, city text, region text, postal_code text, country text,
        contact_name text, contact_email text, contact_phone text,
        notification_emails text[] NOT NULL DEFAULT '{}',
        delivery_parties jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, id)
      )`);
    await q.query(`
      CREATE TABLE alert_presets (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        temperature_min double precision, temperature_max double precision,
        humidity_min double precision, humidity_max double precision,
        light_max double precision, shock_max double precision, battery_min double precision,
        delay_minutes int NOT NULL DEFAULT 0 CHECK (delay_minutes BETWEEN 0 AND 1440),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (temperature_min < temperature_max),
        CHECK (humidity_min < humidity_max),
        UNIQUE (account_id, id)
      )`);
    await q.query(`
      CREATE TABLE shipment_templates (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        origin_location_id uuid NOT NULL,
        destination_location_id uuid NOT NULL,
        carrier_id uuid,
        receiver_id uuid,
        alert_preset_id uuid,
        transport_legs jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (account_id, origin_location_id) REFERENCES locations (account_id, id),
        FOREIGN KEY (account_id, destination_location_id) REFERENCES locations (account_id, id),
        FOREIGN KEY (account_id, carrier_id) REFERENCES carriers (account_id, id),
        FOREIGN KEY (account_id, receiver_id) REFERENCES receivers (account_id, id),
        FOREIGN KEY (account_id, alert_preset_id) REFERENCES alert_presets (account_id, id),
        UNIQUE (account_id, id)
      )`);
    for (const column of ['origin_location_id', 'destination_location_id', 'carrier_id', 'receiver_id', 'alert_preset_id']) {
      await q.query(`CREATE INDEX shipment_templates_${column}_idx ON shipment_templates (account_id, ${column})`);
    }
    await q.query(`CREATE INDEX shipment_templates_legs_idx ON shipment_templates USING gin (transport_legs jsonb_path_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE shipment_templates`);
    await q.query(`DROP TABLE alert_presets`);
    await q.query(`DROP TABLE receivers`);
    await q.query(`DROP TABLE carriers`);
    await q.query(`DROP TABLE locations`);
  }
}
