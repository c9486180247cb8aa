import type { EntityManager } from 'typeorm';
import { assertSameTenantReferences } from '../catalogue';
import { invalidField, ValidationFailedError, type FieldError } from '../errors';
import { toStoredLegs, type ShipmentLegMode, type StoredShipmentLeg } from './shipment-legs';
import { lockShipmentTemplate, type ShipmentTemplateRow } from './shipments.repository';
import type { AccountId } from '@app/vocabulary';

/** One transport leg as sent, in travel order (the api's `ShipmentLegInputDto` satisfies it). */
export interface ShipmentLegInput {
  mode: ShipmentLegMode;
  carrier_id: string | null;
  vessel_mmsi: string | null;
  vessel_imo: string | null;
  from_location_id: string | null;
  to_location_id: string | null;
  planned_departure_at: string | null;
  planned_arrival_at: string | null;
}

/** PUT: every writable field of an active shipment (the api's `ReplaceShipmentDto` satisfies it). */
export interface ReplaceShipmentInput {
  reference: string;
  name: string;
  origin_location_id: string;
  destination_location_id: string;
  planned_departure_at?: string | null;
  planned_arrival_at?: string | null;
  receiver_id?: string | null;
  carrier_id?: string | null;
  alert_preset_id?: string | null;
  transport_legs?: ShipmentLegInput[];
  device_ids: string[];
}

/** POST: a new shipment, optionally from a template (the api's `CreateShipmentDto` satisfies it). */
export interface CreateShipmentInput {
  reference: string;
  name: string;
  template_id?: string | null;
  origin_location_id?: string | null;
  destination_location_id?: string | null;
  planned_departure_at?: string | null;
  planned_arrival_at?: string | null;
  receiver_id?: string | null;
  carrier_id?: string | null;
  alert_preset_id?: string | null;
  transport_legs?: ShipmentLegInput[];
  device_ids: string[];
}

/** The writable state of a shipment after POST or PUT, every optional field resolved. */
export interface ShipmentFields {
  reference: string;
  name: string;
  templateId: string | null;
  originLocationId: string;
  destinationLocationId: string;
  plannedDepartureAt: string | null;
  plannedArrivalAt: string | null;
  receiverId: string | null;
  carrierId: string | null;
  alertPresetId: string | null;
  legs: StoredShipmentLeg[];
}

const storedLegs = (legs: ShipmentLegInput[]): StoredShipmentLeg[] =>
  legs.map((leg) => ({
    mode: leg.mode,
    carrier_id: leg.carrier_id,
    vessel_mmsi: leg.vessel_mmsi,
    vessel_imo: leg.vessel_imo,
    from_location_id: leg.from_location_id,
    to_location_id: leg.to_location_id,
    planned_departure_at: leg.planned_departure_at ? new Date(leg.planned_departure_at).toISOString() : null,
    planned_arrival_at: leg.planned_arrival_at ? new Date(leg.planned_arrival_at).toISOString() : null,
  }));

const instant = (value: string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/** The template, share-locked like any other reference (a concurrent delete waits and then sees the shipment). */
async function loadTemplate(manager: EntityManager, accountId: AccountId, templateId: string): Promise<ShipmentTemplateRow> {
  const template = await lockShipmentTemplate(manager, accountId, templateId);
  if (!template) throw invalidField('template_id', 'template_id does not name a shipment template of this account', 'reference_not_found');
  return template;
}

/** POST: the template fills the route, legs, carrier, receiver and alert preset; fields sent (null included) win. */
export async function fieldsForCreate(manager: EntityManager, accountId: AccountId, body: CreateShipmentInput): Promise<ShipmentFields> {
  const template = body.template_id ? await loadTemplate(manager, accountId, body.template_id) : null;
  const pick = <T>(sent: T | undefined, fromTemplate: T | null | undefined): T | null => (sent !== undefined ? sent : (fromTemplate ?? null));
  const origin = pick(body.origin_location_id, template?.origin_location_id);
  const destination = pick(body.destination_location_id, template?.destination_location_id);
  const missing: FieldError[] = [];
  if (!origin) missing.push({ field: 'origin_location_id', code: 'required', message: 'origin_location_id is required unless template_id is given' });
  if (!destination) missing.push({ field: 'destination_location_id', code: 'required', message: 'destination_location_id is required unless template_id is given' });
  if (missing.length > 0) throw new ValidationFailedError(missing);
  return {
    reference: body.reference,
    name: body.name,
    templateId: body.template_id ?? null,
    originLocationId: origin as string,
    destinationLocationId: destination as string,
    plannedDepartureAt: instant(body.planned_departure_at),
    plannedArrivalAt: instant(body.planned_arrival_at),
    receiverId: pick(body.receiver_id, template?.receiver_id),
    carrierId: pick(body.carrier_id, template?.carrier_id),
    alertPresetId: pick(body.alert_preset_id, template?.alert_preset_id),
    legs: body.transport_legs !== undefined ? storedLegs(body.transport_legs) : toStoredLegs(template?.transport_legs ?? []),
  };
}

/** PUT replaces every writable field; the template the shipment came from stays recorded. */
export function fieldsForReplace(body: ReplaceShipmentInput, templateId: string | null): ShipmentFields {
  return {
    reference: body.reference,
    name: body.name,
    templateId,
    originLocationId: body.origin_location_id,
    destinationLocationId: body.destination_location_id,
    plannedDepartureAt: instant(body.planned_departure_at),
    plannedArrivalAt: instant(body.planned_arrival_at),
    receiverId: body.receiver_id ?? null,
    carrierId: body.carrier_id ?? null,
    alertPresetId: body.alert_preset_id ?? null,
    legs: storedLegs(body.transport_legs ?? []),
  };
}

const notAfter = (from: string | null, to: string | null): boolean => from !== null && to !== null && new Date(to).getTime() <= new Date(from).getTime();

/** Cross-field rules: arrivals after departures, vessel identifiers on sea legs only. */
export function checkFields(fields: ShipmentFields): void {
  const errors: FieldError[] = [];
  if (notAfter(fields.plannedDepartureAt, fields.plannedArrivalAt)) {
    errors.push({ field: 'planned_arrival_at', code: 'not_after_departure', message: 'planned_arrival_at must be later than planned_departure_at' });
  }
  fields.legs.forEach((leg, index) => {
    if (notAfter(leg.planned_departure_at, leg.planned_arrival_at)) {
      errors.push({ field: `transport_legs.${index}.planned_arrival_at`, code: 'not_after_departure', message: 'planned_arrival_at must be later than planned_departure_at' });
    }
    for (const key of ['vessel_mmsi', 'vessel_imo'] as const) {
      if (leg[key] !== null && leg.mode !== 'sea') errors.push({ field: `transport_legs.${index}.${key}`, code: 'not_applicable', message: `${key} applies only to sea legs` });
    }
  });
  if (errors.length > 0) throw new ValidationFailedError(errors);
}

/** Every referenced id names a record of the account (share-locked until commit), or 400 naming the field. */
export async function checkReferences(manager: EntityManager, accountId: AccountId, fields: ShipmentFields): Promise<void> {
  const legs = fields.legs.map((leg, index) => ({ leg, at: `transport_legs.${index}` }));
  await assertSameTenantReferences(manager, accountId, [
    {
      table: 'locations',
      noun: 'location',
      fields: [
        { field: 'origin_location_id', id: fields.originLocationId },
        { field: 'destination_location_id', id: fields.destinationLocationId },
        ...legs.flatMap(({ leg, at }) => [
          { field: `${at}.from_location_id`, id: leg.from_location_id },
          { field: `${at}.to_location_id`, id: leg.to_location_id },
        ]),
      ],
    },
    {
      table: 'carriers',
      noun: 'carrier',
      fields: [{ field: 'carrier_id', id: fields.carrierId }, ...legs.map(({ leg, at }) => ({ field: `${at}.carrier_id`, id: leg.carrier_id }))],
    },
    { table: 'receivers', noun: 'receiver', fields: [{ field: 'receiver_id', id: fields.receiverId }] },
    { table: 'alert_presets', noun: 'alert preset', fields: [{ field: 'alert_preset_id', id: fields.alertPresetId }] },
  ]);
}
