import { defineQueries } from '@app/database/sql';

export type CatalogueTable = 'locations' | 'carriers' | 'receivers' | 'alert_presets' | 'shipment_templates';

const ADDRESS = ['address_line1', 'address_line2', 'city', 'region', 'postal_code', 'country'];

/** The writable columns of each catalogue table: every column but id, account_id and the timestamps. */
export const CATALOGUE_COLUMNS: Record<CatalogueTable, readonly string[]> = {
  locations: ['name', 'kind', ...ADDRESS, 'geofence', 'automation'],
  carriers: ['name', 'mode', 'contact_name', 'contact_email', 'contact_phone', 'scac', 'iata_code', 'mmsi', 'imo'],
  receivers: ['name', ...ADDRESS, 'contact_name', 'contact_email', 'contact_phone', 'notification_emails', 'delivery_parties'],
  alert_presets: [
    'name', 'description', 'temperature_min', 'temperature_max', 'humidity_min', 'humidity_max', 'light_max', 'shock_max', 'battery_min', 'delay_minutes',
  ],
  shipment_templates: [
    'name', 'description', 'origin_location_id', 'destination_location_id', 'carrier_id', 'receiver_id', 'alert_preset_id', 'transport_legs',
  ],
};

/** The entity property of a column (`postal_code` → `postalCode`). */
export const propertyOf = (column: string): string => column.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());

/** A table's columns named as its entity's properties; `alias` qualifies them (UPDATE … FROM). */
function selected(table: CatalogueTable, alias = ''): string {
  const named = (column: string): string => (propertyOf(column) === column ? `${alias}${column}` : `${alias}${column} AS "${propertyOf(column)}"`);
  return ['id', 'account_id', ...CATALOGUE_COLUMNS[table], 'created_at', 'updated_at'].map(named).join(', ');
}

/**
 * Reading and writing whole records of one table. A write sends the record's writable columns as
 * one JSON object ($3, keyed by column), turned into the table's row type by jsonb_populate_record
 * (so each value gets its column's type); an update moves updated_at only when a value changes.
 */
type RecordStatements<P extends string, S extends string> = Record<
  `list${P}` | `find${S}` | `find${S}ForNoKeyUpdate` | `find${S}ForUpdate` | `insert${S}` | `update${S}` | `delete${S}`,
  string
>;

function recordStatements<P extends string, S extends string>(table: CatalogueTable, plural: P, singular: S): RecordStatements<P, S> {
  const columns = CATALOGUE_COLUMNS[table];
  const statements: Record<string, string> = {
    // After $2 (keyset; null: from the start) in creation order (UUIDv7 ids), at most $3.
    [`list${plural}`]: `SELECT ${selected(table)} FROM ${table} WHERE account_id = $1 AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`,
    [`find${singular}`]: `SELECT ${selected(table)} FROM ${table} WHERE account_id = $1 AND id = $2`,
    // An update's lock: does not block writers that only reference the record (FOR KEY SHARE).
    [`find${singular}ForNoKeyUpdate`]: `SELECT ${selected(table)} FROM ${table} WHERE account_id = $1 AND id = $2 FOR NO KEY UPDATE`,
    // A delete's lock: waits for writers that hold FOR KEY SHARE while they verify a reference.
    [`find${singular}ForUpdate`]: `SELECT ${selected(table)} FROM ${table} WHERE account_id = $1 AND id = $2 FOR UPDATE`,
    [`insert${singular}`]: `
      INSERT INTO ${table} (account_id, id, ${columns.join(', ')})
      SELECT $1, $2, ${columns.map((column) => `r.${column}`).join(', ')} FROM jsonb_populate_record(NULL::${table}, $3::jsonb) r
      RETURNING ${selected(table)}`,
    [`update${singular}`]: `
      UPDATE ${table} t
         SET ${columns.map((column) => `${column} = r.${column}`).join(', ')},
             updated_at = CASE WHEN (${columns.map((column) => `t.${column}`).join(', ')}) IS DISTINCT FROM (${columns.map((column) => `r.${column}`).join(', ')}) THEN now() ELSE t.updated_at END
        FROM jsonb_populate_record(NULL::${table}, $3::jsonb) r
       WHERE t.account_id = $1 AND t.id = $2
      RETURNING ${selected(table, 't.')}`,
    [`delete${singular}`]: `DELETE FROM ${table} WHERE account_id = $1 AND id = $2`,
  };
  return statements as RecordStatements<P, S>;
}

/**
 * The five catalogue families: whole records of each table (the shared CRUD), reference checks
 * that share-lock what a write points at, and "is it still used" checks.
 */
export const CATALOGUE_QUERIES = defineQueries({
  owner: 'catalogue',
  tables: ['locations', 'carriers', 'receivers', 'alert_presets', 'shipment_templates'],
  tenant: {
    ...recordStatements('locations', 'Locations', 'Location'),
    ...recordStatements('carriers', 'Carriers', 'Carrier'),
    ...recordStatements('receivers', 'Receivers', 'Receiver'),
    ...recordStatements('alert_presets', 'AlertPresets', 'AlertPreset'),
    ...recordStatements('shipment_templates', 'ShipmentTemplates', 'ShipmentTemplate'),
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
});
