import type { ShipmentTemplate } from '@app/database';
import type { CatalogueMapping } from '@app/domain';
import type { CreateShipmentTemplateDto } from './dto/create-shipment-template.dto';

/**
 * The DTO-bound half of the shipment template family (its rules live in
 * libs/domain/src/shipment-templates): writable API field → entity property, and defaults.
 */
export const SHIPMENT_TEMPLATE_MAPPING: CatalogueMapping<ShipmentTemplate, CreateShipmentTemplateDto> = {
  columns: {
    name: 'name',
    description: 'description',
    origin_location_id: 'originLocationId',
    destination_location_id: 'destinationLocationId',
    carrier_id: 'carrierId',
    receiver_id: 'receiverId',
    alert_preset_id: 'alertPresetId',
    transport_legs: 'transportLegs',
  },
  defaults: { description: null, carrier_id: null, receiver_id: null, alert_preset_id: null, transport_legs: [] },
};
