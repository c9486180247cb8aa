import type { ReferenceCheck } from '../catalogue/catalogue-family';
import { isUsedByShipmentTemplates, type TemplateReference } from '../catalogue/catalogue.repository';

/** A record is used by a shipment template when one of its columns or transport legs names it. */
export function referencedByShipmentTemplates(reference: TemplateReference): ReferenceCheck {
  return {
    what: 'a shipment template',
    isReferenced: (manager, accountId, id) => isUsedByShipmentTemplates(manager, accountId, reference, id),
  };
}
