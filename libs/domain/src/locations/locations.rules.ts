import type { ReferenceCheck } from '../catalogue/catalogue-family';
import { referencedByActiveShipments } from '../shipments/shipment-references';
import { referencedByShipmentTemplates } from '../shipment-templates/shipment-template-references';

/** Who may still point at a location. */
export const LOCATION_REFERENCES: ReferenceCheck[] = [
  referencedByShipmentTemplates('location'),
  referencedByActiveShipments(['origin_location_id', 'destination_location_id'], ['from_location_id', 'to_location_id']),
];
