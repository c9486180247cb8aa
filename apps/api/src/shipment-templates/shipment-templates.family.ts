import type { EntityManager } from 'typeorm';
import { ShipmentTemplate } from '@app/database';
import { ValidationFailedError } from '../common/api-error';
import type { CatalogueFamily, ReferenceCheck, WritableFields } from '../common/catalogue/catalogue-family';
import { assertSameTenantReferences } from '../common/catalogue/same-tenant-references';
import type { CreateShipmentTemplateDto } from './dto/create-shipment-template.dto';
import { referencedByActiveShipments } from '../shipments/shipment-references';
import type { AccountId } from '@app/vocabulary';

type TemplateFields = WritableFields<CreateShipmentTemplateDto>;

/** Vessel identifiers describe a ship: only sea legs carry them. */
export function checkLegs(fields: TemplateFields): void {
  const errors = fields.transport_legs.flatMap((leg, index) =>
    (['vessel_mmsi', 'vessel_imo'] as const)
      .filter((key) => leg[key] !== null && leg.mode !== 'sea')
      .map((key) => ({ field: `transport_legs.${index}.${key}`, code: 'not_applicable', message: `${key} applies only to sea legs` })),
  );
  if (errors.length > 0) throw new ValidationFailedError(errors);
}

async function checkReferences(manager: EntityManager, accountId: AccountId, fields: TemplateFields): Promise<void> {
  const legs = fields.transport_legs.map((leg, index) => ({ leg, at: `transport_legs.${index}` }));
  await assertSameTenantReferences(manager, accountId, [
    {
      table: 'locations',
      noun: 'location',
      fields: [
        { field: 'origin_location_id', id: fields.origin_location_id },
        { field: 'destination_location_id', id: fields.destination_location_id },
        ...legs.flatMap(({ leg, at }) => [
          { field: `${at}.from_location_id`, id: leg.from_location_id },
          { field: `${at}.to_location_id`, id: leg.to_location_id },
        ]),
      ],
    },
    {
      table: 'carriers',
      noun: 'carrier',
      fields: [{ field: 'carrier_id', id: fields.carrier_id }, ...legs.map(({ leg, at }) => ({ field: `${at}.carrier_id`, id: leg.carrier_id }))],
    },
    { table: 'receivers', noun: 'receiver', fields: [{ field: 'receiver_id', id: fields.receiver_id }] },
    { table: 'alert_presets', noun: 'alert preset', fields: [{ field: 'alert_preset_id', id: fields.alert_preset_id }] },
  ]);
}

/** Who may still point at a shipment template: an active shipment created from it. */
export const SHIPMENT_TEMPLATE_REFERENCES: ReferenceCheck[] = [referencedByActiveShipments(['template_id'])];

export const SHIPMENT_TEMPLATES: CatalogueFamily<ShipmentTemplate, CreateShipmentTemplateDto> = {
  entity: ShipmentTemplate,
  noun: 'Shipment template',
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
  check: async (manager, accountId, fields) => {
    checkLegs(fields);
    await checkReferences(manager, accountId, fields);
  },
  references: SHIPMENT_TEMPLATE_REFERENCES,
};
