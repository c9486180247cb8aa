import type { EntityManager } from 'typeorm';
import type { AccountId } from '@app/vocabulary';
import { type ReferenceCheck, assertSameTenantReferences } from '../catalogue';
import { ValidationFailedError } from '../errors';
import { referencedByActiveShipments } from '../shipments';

/** One leg of a template's route, as the record will be stored (the api's `TransportLegDto`). */
export interface TemplateLegFields {
  mode: string;
  carrier_id: string | null;
  vessel_mmsi: string | null;
  vessel_imo: string | null;
  from_location_id: string | null;
  to_location_id: string | null;
}

/** The fields of a shipment template the rules read, as the record will be stored. */
export interface ShipmentTemplateRuleFields {
  origin_location_id: string;
  destination_location_id: string;
  carrier_id: string | null;
  receiver_id: string | null;
  alert_preset_id: string | null;
  transport_legs: TemplateLegFields[];
}

/** Vessel identifiers describe a ship: only sea legs carry them. */
export function checkLegs(fields: Pick<ShipmentTemplateRuleFields, 'transport_legs'>): void {
  const errors = fields.transport_legs.flatMap((leg, index) =>
    (['vessel_mmsi', 'vessel_imo'] as const)
      .filter((key) => leg[key] !== null && leg.mode !== 'sea')
      .map((key) => ({ field: `transport_legs.${index}.${key}`, code: 'not_applicable', message: `${key} applies only to sea legs` })),
  );
  if (errors.length > 0) throw new ValidationFailedError(errors);
}

/** Every referenced id names a record of the account (share-locked until commit), or 400 naming the field. */
export async function checkTemplateReferences(manager: EntityManager, accountId: AccountId, fields: ShipmentTemplateRuleFields): Promise<void> {
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
