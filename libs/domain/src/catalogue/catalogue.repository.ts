import type { EntityTarget, FindOptionsWhere } from 'typeorm';
import type { TenantEntity } from '@app/database';
import { sql, type Db, type TenantQuery } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { CATALOGUE_QUERIES as Q } from './catalogue.queries';

export type CatalogueTable = 'locations' | 'carriers' | 'receivers' | 'alert_presets' | 'shipment_templates';

const LOCK_BY_TABLE: Record<CatalogueTable, TenantQuery> = {
  locations: Q.lockLocations,
  carriers: Q.lockCarriers,
  receivers: Q.lockReceivers,
  alert_presets: Q.lockAlertPresets,
  shipment_templates: Q.lockShipmentTemplates,
};

export type CatalogueLock = 'for_no_key_update' | 'pessimistic_write';

const tenantWhere = <E extends TenantEntity>(accountId: AccountId, id: string): FindOptionsWhere<E> => ({ accountId, id }) as FindOptionsWhere<E>;

/** `limit` records of the account after the keyset position, in creation order (UUIDv7 ids). */
export function listCatalogueRecords<E extends TenantEntity>(db: Db, entity: EntityTarget<E>, accountId: AccountId, after: string | null, limit: number): Promise<E[]> {
  const query = db
    .getRepository(entity)
    .createQueryBuilder('record')
    .where('record.account_id = :accountId', { accountId })
    .orderBy('record.id', 'ASC')
    .take(limit);
  if (after !== null) query.andWhere('record.id > :after', { after });
  return query.getMany();
}

export function findCatalogueRecord<E extends TenantEntity>(db: Db, entity: EntityTarget<E>, accountId: AccountId, id: string, lock?: CatalogueLock): Promise<E | null> {
  return db.getRepository(entity).findOne({ where: tenantWhere<E>(accountId, id), ...(lock ? { lock: { mode: lock } } : {}) });
}

export async function deleteCatalogueRecord<E extends TenantEntity>(db: Db, entity: EntityTarget<E>, accountId: AccountId, id: string): Promise<void> {
  await db.getRepository(entity).delete(tenantWhere<E>(accountId, id));
}

/** Saves `current` changed by `values`, or a new record of the account with `id`. */
export function saveCatalogueRecord<E extends TenantEntity>(db: Db, entity: EntityTarget<E>, accountId: AccountId, current: E | null, values: Record<string, unknown>, id: string): Promise<E> {
  const repository = db.getRepository(entity);
  const record = current ? Object.assign(current, values) : repository.create({ ...values, id, accountId } as unknown as E);
  return repository.save(record);
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

export const seedDemoCatalogueRows = {
  location: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoLocation, values),
  carrier: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoCarrier, values),
  receiver: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoReceiver, values),
  alertPreset: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoAlertPreset, values),
  shipmentTemplate: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoShipmentTemplate, values),
};
