import type { Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { isUsedByShipmentTemplates, type TemplateReference } from './catalogue.repository';

export type { TemplateReference };

/** Whether one of the account's shipment templates uses the catalogue record (its deletion is refused then). */
export function usedByShipmentTemplates(db: Db, accountId: AccountId, reference: TemplateReference, id: string): Promise<boolean> {
  return isUsedByShipmentTemplates(db, accountId, reference, id);
}
