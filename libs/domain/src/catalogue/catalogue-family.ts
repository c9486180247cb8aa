import type { EntityManager } from 'typeorm';
import type { TenantEntity } from '@app/database';
import type { AccountId } from '@app/vocabulary';
import type { CatalogueTable } from './catalogue.queries';

/**
 * One kind of record that may still point at a catalogue record. Deleting a referenced record is
 * refused (409 `in_use`); a later feature (shipments, device settings) appends its own check to
 * the family's list.
 */
export interface ReferenceCheck {
  /** Names the referrer in the 409 detail, e.g. "a shipment template". */
  what: string;
  isReferenced(manager: EntityManager, accountId: AccountId, id: string): Promise<boolean>;
}

/**
 * The complete writable state of a record in API field names: what POST and PUT send, with every
 * optional field filled in. Derived from the create DTO, so the two cannot drift apart.
 */
export type WritableFields<Dto> = { [K in keyof Dto]-?: Exclude<Dto[K], undefined> };

/**
 * Everything the shared CRUD needs to know about one catalogue family.
 *
 * The family is split between two homes. The rules (table, noun, `check`, `references`) are
 * framework-free and live in libs/domain/src/<family>/ with the family's service. The
 * mapping (`columns`, `defaults`: a `CatalogueMapping`) is keyed by the fields of the api's
 * create DTO (class-validator/swagger classes) and some defaults are DTO instances, so it stays in
 * apps/api/src/<family>/<family>.family.ts and is passed to the service by the Nest module.
 */
export interface CatalogueFamily<E extends TenantEntity, Dto extends object> {
  /** Where its records live (read and written as whole records of `E`). */
  table: CatalogueTable;
  /** Singular, capitalised: "Location". */
  noun: string;
  /** The explicit allow-list: writable API field → entity property. Nothing else is ever written. */
  columns: { [K in keyof Dto]-?: keyof E & string };
  /** What POST and PUT store for an optional field that was not sent. */
  defaults: { [K in keyof Dto]?: WritableFields<Dto>[K] };
  /**
   * Rules over the whole record after the change (cross-field constraints, references to other
   * records); runs inside the write transaction and throws ValidationFailedError.
   */
  check?(manager: EntityManager, accountId: AccountId, fields: WritableFields<Dto>): Promise<void>;
  /** Who may still point at a record of this family. */
  references: ReferenceCheck[];
}

/** The DTO-bound half of a family, supplied by the api: API field → entity property, and defaults. */
export type CatalogueMapping<E extends TenantEntity, Dto extends object> = Pick<CatalogueFamily<E, Dto>, 'columns' | 'defaults'>;
