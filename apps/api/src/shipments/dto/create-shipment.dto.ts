import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsUUID, ValidateNested } from 'class-validator';
import { OptionalUuid, RequiredText, RequiredUuid } from '../../common/catalogue/field-decorators';
import { OptionalNotNull } from '../../common/validators';
import { OptionalTimestamp, ShipmentLegInputDto } from './shipment-leg.dto';
import { MAX_SHIPMENT_DEVICES } from '@app/domain';

export const MAX_SHIPMENT_LEGS = 10;
/** Sanity bound of the array itself; more than MAX_SHIPMENT_DEVICES is refused as `too_many_devices`. */
const DEVICE_IDS_ARRAY_BOUND = 100;

const devicesDoc: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', format: 'uuid' },
  minItems: 1,
  maxItems: MAX_SHIPMENT_DEVICES,
  uniqueItems: true,
  description:
    'One to five devices of the account: approved, not deleted, and in no other active shipment. More than five is a 400 `too_many_devices`; an ineligible device a 400 `device_not_eligible` naming it (`device_ids.N`).',
};

/** `transport_legs`: optional, never null, at most MAX_SHIPMENT_LEGS validated legs. */
function TransportLegs(doc: ApiPropertyOptions): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: [ShipmentLegInputDto], maxItems: MAX_SHIPMENT_LEGS, ...doc }),
    OptionalNotNull(),
    IsArray(),
    ArrayMaxSize(MAX_SHIPMENT_LEGS),
    ValidateNested({ each: true }),
    Type(() => ShipmentLegInputDto),
  );
}

/** `device_ids`: one or more distinct UUIDs; the five-device limit is checked by the service. */
function DeviceIds(): PropertyDecorator {
  return applyDecorators(ApiProperty(devicesDoc), IsArray(), ArrayMinSize(1), ArrayMaxSize(DEVICE_IDS_ARRAY_BOUND), ArrayUnique(), IsUUID(undefined, { each: true }));
}

/** The fields PUT replaces (and POST sets): route, planning, receiver, carrier, alert preset, legs, devices. */
export class ReplaceShipmentDto {
  @RequiredText(100, 'PO-2025-0147') reference: string;
  @RequiredText(200, 'Vaccines Izmir → Ankara') name: string;
  @RequiredUuid('Origin location.') origin_location_id: string;
  @RequiredUuid('Destination location. Entering its geofence can mark the arrival and complete the shipment (location automation).')
  destination_location_id: string;
  @OptionalTimestamp('Planned departure.') planned_departure_at?: string | null;
  @OptionalTimestamp('Planned arrival; later than the planned departure.') planned_arrival_at?: string | null;
  @OptionalUuid('Receiver.') receiver_id?: string | null;
  @OptionalUuid('Main carrier.') carrier_id?: string | null;
  @OptionalUuid('Alert preset whose limits the shipment report applies (completing each device’s own thresholds).') alert_preset_id?: string | null;

  @TransportLegs({ default: [], description: 'Legs in travel order; replaced as a whole.' })
  transport_legs?: ShipmentLegInputDto[];

  @DeviceIds()
  device_ids: string[];
}

/**
 * POST: the route comes from `origin_location_id` + `destination_location_id`, or from a
 * template. A template fills the route, legs, carrier, receiver and alert preset; any of those
 * sent explicitly (null included) overrides the template's.
 */
export class CreateShipmentDto {
  @RequiredText(100, 'PO-2025-0147') reference: string;
  @RequiredText(200, 'Vaccines Izmir → Ankara') name: string;
  @OptionalUuid('Shipment template of the account that fills the route, legs, carrier, receiver and alert preset.') template_id?: string | null;
  @OptionalUuid('Origin location; required unless `template_id` is given.') origin_location_id?: string | null;
  @OptionalUuid('Destination location; required unless `template_id` is given.') destination_location_id?: string | null;
  @OptionalTimestamp('Planned departure.') planned_departure_at?: string | null;
  @OptionalTimestamp('Planned arrival; later than the planned departure.') planned_arrival_at?: string | null;
  @OptionalUuid('Receiver (overrides the template’s).') receiver_id?: string | null;
  @OptionalUuid('Main carrier (overrides the template’s).') carrier_id?: string | null;
  @OptionalUuid('Alert preset (overrides the template’s).') alert_preset_id?: string | null;

  @TransportLegs({ description: 'Legs in travel order (default: the template’s, else none).' })
  transport_legs?: ShipmentLegInputDto[];

  @DeviceIds()
  device_ids: string[];
}
