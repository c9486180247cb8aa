import type { DataSource, EntityManager } from 'typeorm';
import { QueryFailedError } from 'typeorm';
import { newId, type TenantEntity } from '@app/database';
import { ConflictError, NotFoundError } from '../errors';
import type { CatalogueFamily, WritableFields } from './catalogue-family';
import type { AccountId, KeysetPage } from '@app/vocabulary';
import { type CatalogueLock, deleteCatalogueRecord, findCatalogueRecord, listCatalogueRecords, saveCatalogueRecord } from './catalogue.repository';

const FOREIGN_KEY_VIOLATION = '23503';

const definedOnly = <T extends object>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;

/**
 * Tenant-scoped CRUD shared by the catalogue families. Every method takes the account id first
 * and every query filters on it: a record of another tenant is a 404 like a missing one.
 *
 * POST and PUT both store `{...defaults, ...sent}` (PUT replaces every writable field); PATCH
 * stores `{...current, ...sent}`. All three validate the resulting record with the family's
 * `check` inside the same transaction that writes it.
 */
export class CatalogueService<E extends TenantEntity, Dto extends object> {
  constructor(
    protected readonly dataSource: DataSource,
    protected readonly family: CatalogueFamily<E, Dto>,
  ) {}

  /** `limit + 1` records after the keyset position, in creation order (UUIDv7 ids). */
  async list(accountId: AccountId, page: KeysetPage<string>): Promise<E[]> {
    return listCatalogueRecords<E>(this.dataSource, this.family.table, accountId, page.after, page.limit + 1);
  }

  async get(accountId: AccountId, id: string): Promise<E> {
    return this.find(this.dataSource.manager, accountId, id);
  }

  async create(accountId: AccountId, input: Dto): Promise<E> {
    return this.dataSource.transaction((manager) => this.write(manager, accountId, null, this.replacement(input)));
  }

  async replace(accountId: AccountId, id: string, input: Dto): Promise<E> {
    return this.dataSource.transaction(async (manager) => {
      const current = await this.find(manager, accountId, id, 'for_no_key_update');
      return this.write(manager, accountId, current, this.replacement(input));
    });
  }

  async update(accountId: AccountId, id: string, changes: Partial<Dto>): Promise<E> {
    return this.dataSource.transaction(async (manager) => {
      const current = await this.find(manager, accountId, id, 'for_no_key_update');
      return this.write(manager, accountId, current, { ...this.fieldsOf(current), ...definedOnly(changes) } as WritableFields<Dto>);
    });
  }

  async remove(accountId: AccountId, id: string): Promise<void> {
    try {
      await this.dataSource.transaction(async (manager) => {
        // FOR UPDATE waits for writers that hold a key-share lock on this record while they verify
        // a reference to it, so the checks below see every committed reference.
        await this.find(manager, accountId, id, 'for_update');
        for (const reference of this.family.references) {
          if (await reference.isReferenced(manager, accountId, id)) {
            throw new ConflictError('in_use', `${this.family.noun} is still used by ${reference.what}; remove that reference first.`, 'In use');
          }
        }
        await deleteCatalogueRecord(manager, this.family.table, accountId, id);
      });
    } catch (error) {
      // Backstop: a foreign key the checks above did not know about.
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === FOREIGN_KEY_VIOLATION) {
        throw new ConflictError('in_use', `${this.family.noun} is still referenced by another record.`, 'In use');
      }
      throw error;
    }
  }

  /**
   * Updates take FOR NO KEY UPDATE, which does not block writers that only reference the record
   * (they hold FOR KEY SHARE); deletes take FOR UPDATE, which does.
   */
  private async find(manager: EntityManager, accountId: AccountId, id: string, lock?: CatalogueLock): Promise<E> {
    const record = await findCatalogueRecord<E>(manager, this.family.table, accountId, id, lock);
    if (!record) throw new NotFoundError(this.family.noun);
    return record;
  }

  private replacement(input: Dto): WritableFields<Dto> {
    return { ...this.family.defaults, ...definedOnly(input) } as WritableFields<Dto>;
  }

  private fieldsOf(record: E): WritableFields<Dto> {
    const fields: Record<string, unknown> = {};
    for (const [field, column] of Object.entries(this.family.columns) as Array<[string, keyof E]>) fields[field] = record[column];
    return fields as WritableFields<Dto>;
  }

  private async write(manager: EntityManager, accountId: AccountId, current: E | null, fields: WritableFields<Dto>): Promise<E> {
    await this.family.check?.(manager, accountId, fields);
    const values: Record<string, unknown> = {};
    for (const [field, column] of Object.entries(this.family.columns) as Array<[keyof Dto, string]>) {
      // Nested DTO instances become plain JSON for jsonb columns.
      values[column] = toPlain(fields[field]);
    }
    return saveCatalogueRecord<E>(manager, this.family.table, accountId, current !== null, values, current?.id ?? newId());
  }
}

function toPlain(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value;
}
