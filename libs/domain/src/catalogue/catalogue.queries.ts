import { defineQueries } from '@app/database/sql';

/**
 * The five catalogue families are read and written through their TypeORM entities
 * (catalogue.repository.ts); these are the hand-written statements around them: reference
 * checks that share-lock what a write points at, "is it still used" checks, and the demo seed.
 */
export const CATALOGUE_QUERIES = defineQueries({
  owner: 'catalogue',
  tables: ['locations', 'carriers', 'receivers', 'alert_presets', 'shipment_templates'],
  tenant: {
    // Which of these ids name records of the account; the rows stay share-locked (FOR KEY SHARE)
    // until the transaction ends, so a concurrent delete waits and then sees the reference.
    lockLocations: `SELECT id FROM locations WHERE account_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR KEY SHARE`,
    lockCarriers: `SELECT id FROM carriers WHERE account_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR KEY SHARE`,
    lockReceivers: `SELECT id FROM receivers WHERE account_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR KEY SHARE`,
    lockAlertPresets: `SELECT id FROM alert_presets WHERE account_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR KEY SHARE`,
    lockShipmentTemplates: `SELECT id FROM shipment_templates WHERE account_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR KEY SHARE`,
    // Is the record used by one of the account's shipment templates (a column, or a key of a
    // transport leg: jsonb containment, GIN-indexed)? $3/$4 are the leg patterns.
    templateUsesLocation: `
      SELECT EXISTS (SELECT 1 FROM shipment_templates WHERE account_id = $1
        AND (origin_location_id = $2 OR destination_location_id = $2 OR transport_legs @> $3::jsonb OR transport_legs @> $4::jsonb)) AS used`,
    templateUsesCarrier: `
      SELECT EXISTS (SELECT 1 FROM shipment_templates WHERE account_id = $1 AND (carrier_id = $2 OR transport_legs @> $3::jsonb)) AS used`,
    templateUsesReceiver: `SELECT EXISTS (SELECT 1 FROM shipment_templates WHERE account_id = $1 AND receiver_id = $2) AS used`,
    templateUsesAlertPreset: `SELECT EXISTS (SELECT 1 FROM shipment_templates WHERE account_id = $1 AND alert_preset_id = $2) AS used`,
  },
  platform: {
    seedDemoLocation: `
      INSERT INTO locations (id, account_id, name, kind, city, country, geofence, automation)
      VALUES ($1, $2, $3, $4, $5, 'TR', $6::jsonb, $7::jsonb) ON CONFLICT (id) DO NOTHING`,
    seedDemoCarrier: `
      INSERT INTO carriers (id, account_id, name, mode, contact_email, scac, iata_code, mmsi, imo)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
    seedDemoReceiver: `
      INSERT INTO receivers (id, account_id, name, city, country, contact_email, notification_emails, delivery_parties)
      VALUES ($1, $2, $3, $4, 'TR', $5, $6, $7::jsonb) ON CONFLICT (id) DO NOTHING`,
    seedDemoAlertPreset: `
      INSERT INTO alert_presets (id, account_id, name, temperature_min, temperature_max, light_max, shock_max, battery_min, delay_minutes)
      VALUES ($1, $2, $3, $4, $5, 50, 8, 15, $6) ON CONFLICT (id) DO NOTHING`,
    seedDemoShipmentTemplate: `
      INSERT INTO shipment_templates (id, account_id, name, origin_location_id, destination_location_id, carrier_id, receiver_id, alert_preset_id, transport_legs)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb) ON CONFLICT (id) DO NOTHING`,
  },
});
