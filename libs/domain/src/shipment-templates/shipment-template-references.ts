import { type ReferenceCheck, usedByShipmentTemplates, type TemplateReference } from '../catalogue';

/** A record is used by a shipment template when one of its columns or transport legs names it. */
export function referencedByShipmentTemplates(reference: TemplateReference): ReferenceCheck {
  return {
    what: 'a shipment template',
    isReferenced: (manager, accountId, id) => usedByShipmentTemplates(manager, accountId, reference, id),
  };
}
