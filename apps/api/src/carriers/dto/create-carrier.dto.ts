import { ApiProperty, PartialType } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { TRANSPORT_MODES, type TransportMode } from '@app/database';
import { OptionalEmail, OptionalPhone, OptionalText, RequiredText } from '../../common/catalogue/field-decorators';
import { OptionalIataCode, OptionalImo, OptionalMmsi, OptionalScac } from '../../common/catalogue/transport-identifiers';

/** The writable fields of a carrier (POST and PUT). Anything else is refused. */
export class CreateCarrierDto {
  @RequiredText(200, 'Aegean Reefer Lines') name: string;
  @ApiProperty({ enum: TRANSPORT_MODES, example: 'sea' }) @IsIn(TRANSPORT_MODES) mode: TransportMode;
  @OptionalText(200, 'Deniz Yılmaz') contact_name?: string | null;
  @OptionalEmail('ops@aegean-reefer.example') contact_email?: string | null;
  @OptionalPhone() contact_phone?: string | null;
  @OptionalScac() scac?: string | null;
  @OptionalIataCode() iata_code?: string | null;
  @OptionalMmsi() mmsi?: string | null;
  @OptionalImo() imo?: string | null;
}

/** PATCH: any subset of the writable fields; required fields cannot be set to null. */
export class UpdateCarrierDto extends PartialType(CreateCarrierDto, { skipNullProperties: false }) {}
