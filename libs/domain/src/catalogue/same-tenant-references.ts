import type { EntityManager } from 'typeorm';
import { ValidationFailedError, type FieldError } from '../errors';
import type { AccountId } from '@app/vocabulary';
import { lockSameTenantIds, type CatalogueTable } from './catalogue.repository';

export interface ReferenceField {
  /** Request field that carries the id, as named in `errors[].field`: `transport_legs.0.carrier_id`. */
  field: string;
  id: string | null | undefined;
}

export interface ReferencedTable {
  table: CatalogueTable;
  noun: string;
  fields: ReferenceField[];
}

/**
 * Every id must name a record of the same account; otherwise 400 naming each offending field.
 * The referenced rows stay share-locked until the transaction ends, so a concurrent delete waits
 * and then sees the new reference (see CatalogueService.remove).
 */
export async function assertSameTenantReferences(manager: EntityManager, accountId: AccountId, targets: ReferencedTable[]): Promise<void> {
  const errors: FieldError[] = [];
  for (const target of targets) {
    const ids = [...new Set(target.fields.map((f) => f.id).filter((id): id is string => typeof id === 'string'))];
    if (ids.length === 0) continue;
    const found = await lockSameTenantIds(manager, target.table, accountId, ids);
    for (const { field, id } of target.fields) {
      if (typeof id === 'string' && !found.has(id)) {
        errors.push({ field, code: 'reference_not_found', message: `${field} does not name a ${target.noun} of this account` });
      }
    }
  }
  if (errors.length > 0) throw new ValidationFailedError(errors, 'The request references records that do not exist in this account.');
}
