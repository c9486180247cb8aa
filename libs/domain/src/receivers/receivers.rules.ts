import type { ReferenceCheck } from '../catalogue';
import { referencedByActiveShipments } from '../shipments';
import { referencedByShipmentTemplates } from '../shipment-templates';

/** Who may still point at a receiver. */
export const RECEIVER_REFERENCES: ReferenceCheck[] = [referencedByShipmentTemplates('receiver'), referencedByActiveShipments(['receiver_id'])];
