import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { OptionalUuid } from '../../common/catalogue/field-decorators';
import { OptionalImo, OptionalMmsi } from '../../common/catalogue/transport-identifiers';

/** A leg travels by one mode; `multimodal` describes carriers, not legs. */
export const LEG_MODES = ['road', 'sea', 'air', 'rail'] as const;
export type LegMode = (typeof LEG_MODES)[number];

/** One leg of the route. Initialisers give the stored nulls for fields not sent. */
export class TransportLegDto {
  @ApiProperty({ enum: LEG_MODES, example: 'sea' }) @IsIn(LEG_MODES) mode: LegMode;
  @OptionalUuid('Carrier of this leg; a carrier of the same account.') carrier_id: string | null = null;
  @OptionalMmsi('MMSI of the vessel (sea legs only).') vessel_mmsi: string | null = null;
  @OptionalImo('IMO ship number of the vessel (sea legs only), 7 digits with check digit.') vessel_imo: string | null = null;
  @OptionalUuid('Where the leg starts; a location of the same account.') from_location_id: string | null = null;
  @OptionalUuid('Where the leg ends; a location of the same account.') to_location_id: string | null = null;
}
