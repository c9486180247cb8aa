import { Location } from '@app/database';
import { ADDRESS_COLUMNS, EMPTY_ADDRESS } from '../common/catalogue/address';
import type { CatalogueFamily, ReferenceCheck } from '../common/catalogue/catalogue-family';
import { referencedByShipmentTemplates } from '../shipment-templates/shipment-template-references';
import { AutomationDto } from './dto/automation.dto';
import type { CreateLocationDto } from './dto/create-location.dto';
import { referencedByActiveShipments } from '../shipments/shipment-references';

/** Who may still point at a location. */
export const LOCATION_REFERENCES: ReferenceCheck[] = [
  referencedByShipmentTemplates('location'),
  referencedByActiveShipments(['origin_location_id', 'destination_location_id'], ['from_location_id', 'to_location_id']),
];

export const LOCATIONS: CatalogueFamily<Location, CreateLocationDto> = {
  entity: Location,
  noun: 'Location',
  columns: {
    name: 'name',
    kind: 'kind',
    ...ADDRESS_COLUMNS,
    geofence: 'geofence',
    automation: 'automation',
  },
  defaults: {
    ...EMPTY_ADDRESS,
    automation: new AutomationDto(),
  },
  references: LOCATION_REFERENCES,
};
