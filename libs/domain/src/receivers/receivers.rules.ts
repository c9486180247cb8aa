import type { ReferenceCheck } from '../catalogue/catalogue-family';
import { referencedByActiveShipments } from '../shipments/shipment-references';
import { referencedByShipmentTemplates } from '../shipment-templates/shipment-template-references';

/** Who may still point at a receiver. */
export const RECEIVER_REFERENCES: ReferenceCheck[] = [referencedByShipmentTemplates('receiver'), referencedByActiveShipments(['receiver_id'])];
