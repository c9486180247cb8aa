import type { ReferenceCheck } from '../catalogue';
import { referencedByActiveShipments } from '../shipments';
import { referencedByShipmentTemplates } from '../shipment-templates';

/** Who may still point at a location. */
export const LOCATION_REFERENCES: ReferenceCheck[] = [
  referencedByShipmentTemplates('location'),
  referencedByActiveShipments(['origin_location_id', 'destination_location_id'], ['from_location_id', 'to_location_id']),
];
