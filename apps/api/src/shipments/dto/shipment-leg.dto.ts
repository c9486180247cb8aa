import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, Matches } from 'class-validator';
import { SHIPMENT_LEG_MODES, type ShipmentLegMode } from '@app/domain';
import { IsBoundedTimestamp } from '../../common/hostile-input';
import { OptionalUuid } from '../../common/catalogue/field-decorators';
import { OptionalImo, OptionalMmsi } from '../../common/catalogue/transport-identifiers';
import { ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';

/** An optional, nullable ISO 8601 timestamp with a zone (validation and documentation together). */
export const OptionalTimestamp = (description: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description }),
    IsOptional(),
    IsISO8601({ strict: true }),
    Matches(ZONED_TIMESTAMP_PATTERN, { message: '$property must be an ISO 8601 timestamp with a time zone' }),
    IsBoundedTimestamp(),
  );

/** One leg of the route, in travel order. Initialisers give the stored nulls for fields not sent. */
export class ShipmentLegInputDto {
  @ApiProperty({ enum: SHIPMENT_LEG_MODES, example: 'sea' }) @IsIn(SHIPMENT_LEG_MODES) mode: ShipmentLegMode;
  @OptionalUuid('Carrier of this leg; a carrier of the same account.') carrier_id: string | null = null;
  @OptionalMmsi('MMSI of the vessel (sea legs only); its AIS position is shown while this leg is active.') vessel_mmsi: string | null = null;
  @OptionalImo('IMO ship number of the vessel (sea legs only), 7 digits with check digit.') vessel_imo: string | null = null;
  @OptionalUuid('Where the leg starts; a location of the same account.') from_location_id: string | null = null;
  @OptionalUuid('Where the leg ends; a location of the same account. Entering its geofence completes the leg.') to_location_id: string | null = null;
  @OptionalTimestamp('Planned start of the leg.') planned_departure_at: string | null = null;
  @OptionalTimestamp('Planned end of the leg; once it has passed, the leg counts as completed.') planned_arrival_at: string | null = null;
}

const NullableUuid = (description?: string): PropertyDecorator => ApiProperty({ type: String, format: 'uuid', nullable: true, description });
const NullableTime = (description?: string): PropertyDecorator => ApiProperty({ type: String, format: 'date-time', nullable: true, description });

export class ShipmentLegDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Position in the route (0 = first leg).' }) index: number;
  @ApiProperty({ enum: SHIPMENT_LEG_MODES }) mode: ShipmentLegMode;
  @NullableUuid() carrier_id: string | null;
  @ApiProperty({ type: String, nullable: true, pattern: '^[0-9]{9}$' }) vessel_mmsi: string | null;
  @ApiProperty({ type: String, nullable: true, pattern: '^[0-9]{7}$' }) vessel_imo: string | null;
  @NullableUuid() from_location_id: string | null;
  @NullableUuid() to_location_id: string | null;
  @NullableTime() planned_departure_at: string | null;
  @NullableTime() planned_arrival_at: string | null;
  @ApiProperty({
    description: 'The leg is behind the shipment: its planned arrival has passed, a device entered its destination geofence, or the shipment is completed.',
  })
  completed: boolean;
}
