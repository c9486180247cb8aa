import type { TenantEntity } from '@app/database';
import { sql, type Db, type TenantQuery } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { CATALOGUE_COLUMNS, CATALOGUE_QUERIES as Q, propertyOf, type CatalogueTable } from './catalogue.queries';

export type { CatalogueTable } from './catalogue.queries';

const LOCK_BY_TABLE: Record<CatalogueTable, TenantQuery> = {
  locations: Q.lockLocations,
  carriers: Q.lockCarriers,
  receivers: Q.lockReceivers,
  alert_presets: Q.lockAlertPresets,
  shipment_templates: Q.lockShipmentTemplates,
};

interface RecordQueries {
  list: TenantQuery;
  find: TenantQuery;
  findForNoKeyUpdate: TenantQuery;
  findForUpdate: TenantQuery;
  insert: TenantQuery;
  update: TenantQuery;
  delete: TenantQuery;
}

const RECORDS: Record<CatalogueTable, RecordQueries> = {
  locations: {
    list: Q.listLocations, find: Q.findLocation, findForNoKeyUpdate: Q.findLocationForNoKeyUpdate, findForUpdate: Q.findLocationForUpdate,
    insert: Q.insertLocation, update: Q.updateLocation, delete: Q.deleteLocation,
  },
  carriers: {
    list: Q.listCarriers, find: Q.findCarrier, findForNoKeyUpdate: Q.findCarrierForNoKeyUpdate, findForUpdate: Q.findCarrierForUpdate,
    insert: Q.insertCarrier, update: Q.updateCarrier, delete: Q.deleteCarrier,
  },
  receivers: {
    list: Q.listReceivers, find: Q.findReceiver, findForNoKeyUpdate: Q.findReceiverForNoKeyUpdate, findForUpdate: Q.findReceiverForUpdate,
    insert: Q.insertReceiver, update: Q.updateReceiver, delete: Q.deleteReceiver,
  },
  alert_presets: {
    list: Q.listAlertPresets, find: Q.findAlertPreset, findForNoKeyUpdate: Q.findAlertPresetForNoKeyUpdate, findForUpdate: Q.findAlertPresetForUpdate,
    insert: Q.insertAlertPreset, update: Q.updateAlertPreset, delete: Q.deleteAlertPreset,
  },
  shipment_templates: {
    list: Q.listShipmentTemplates, find: Q.findShipmentTemplate, findForNoKeyUpdate: Q.findShipmentTemplateForNoKeyUpdate,
    findForUpdate: Q.findShipmentTemplateForUpdate, insert: Q.insertShipmentTemplate, update: Q.updateShipmentTemplate, delete: Q.deleteShipmentTemplate,
  },
};

/** Updates take FOR NO KEY UPDATE (referencing writers go on); deletes take FOR UPDATE (they wait). */
export type CatalogueLock = 'for_no_key_update' | 'for_update';

/** `limit` records of the account after the keyset position, in creation order (UUIDv7 ids). */
export function listCatalogueRecords<E extends TenantEntity>(db: Db, table: CatalogueTable, accountId: AccountId, after: string | null, limit: number): Promise<E[]> {
  return sql.rows<E>(db, RECORDS[table].list, [accountId, after, limit]);
}

export function findCatalogueRecord<E extends TenantEntity>(db: Db, table: CatalogueTable, accountId: AccountId, id: string, lock?: CatalogueLock): Promise<E | null> {
  const queries = RECORDS[table];
  const query = lock === 'for_no_key_update' ? queries.findForNoKeyUpdate : lock === 'for_update' ? queries.findForUpdate : queries.find;
  return sql.first<E>(db, query, [accountId, id]);
}

export async function deleteCatalogueRecord(db: Db, table: CatalogueTable, accountId: AccountId, id: string): Promise<void> {
  await sql.run(db, RECORDS[table].delete, [accountId, id]);
}

/** Stores `values` (entity property → value, every writable column) over the record `id`, or as a new record of the account with `id`. */
export async function saveCatalogueRecord<E extends TenantEntity>(
  db: Db,
  table: CatalogueTable,
  accountId: AccountId,
  existing: boolean,
  values: Record<string, unknown>,
  id: string,
): Promise<E> {
  const missing = CATALOGUE_COLUMNS[table].filter((column) => !(propertyOf(column) in values));
  // A family that maps fewer fields than its table has would null the others: a programming error.
  if (missing.length > 0) throw new Error(`a ${table} write without ${missing.join(', ')}`);
  const row = JSON.stringify(Object.fromEntries(CATALOGUE_COLUMNS[table].map((column) => [column, values[propertyOf(column)]])));
  const saved = await sql.first<E>(db, existing ? RECORDS[table].update : RECORDS[table].insert, [accountId, id, row]);
  if (!saved) throw new Error(`the ${table} write found no row`);
  return saved;
}

/** The subset of `ids` naming records of the account in `table`, share-locked until the transaction ends. */
export async function lockSameTenantIds(db: Db, table: CatalogueTable, accountId: AccountId, ids: string[]): Promise<Set<string>> {
  const rows = await sql.rows<{ id: string }>(db, LOCK_BY_TABLE[table], [accountId, ids]);
  return new Set(rows.map((row) => row.id));
}

export type TemplateReference = 'location' | 'carrier' | 'receiver' | 'alert_preset';

/** Whether one of the account's shipment templates uses the record. */
export async function isUsedByShipmentTemplates(db: Db, accountId: AccountId, reference: TemplateReference, id: string): Promise<boolean> {
  const leg = (key: string): string => JSON.stringify([{ [key]: id }]);
  const row =
    reference === 'location'
      ? await sql.first<{ used: boolean }>(db, Q.templateUsesLocation, [accountId, id, leg('from_location_id'), leg('to_location_id')])
      : reference === 'carrier'
        ? await sql.first<{ used: boolean }>(db, Q.templateUsesCarrier, [accountId, id, leg('carrier_id')])
        : reference === 'receiver'
          ? await sql.first<{ used: boolean }>(db, Q.templateUsesReceiver, [accountId, id])
          : await sql.first<{ used: boolean }>(db, Q.templateUsesAlertPreset, [accountId, id]);
  return row?.used === true;
}

