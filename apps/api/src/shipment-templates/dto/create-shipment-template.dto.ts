import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, ValidateNested } from 'class-validator';
import { OptionalText, OptionalUuid, RequiredText, RequiredUuid } from '../../common/catalogue/field-decorators';
import { OptionalNotNull } from '../../common/validators';
import { TransportLegDto } from './transport-leg.dto';

export const MAX_TRANSPORT_LEGS = 10;

/** The writable fields of a shipment template (POST and PUT). Every id names a record of the same account. */
export class CreateShipmentTemplateDto {
  @RequiredText(200, 'Izmir → Ankara vaccines (sea + road)') name: string;
  @OptionalText(1000) description?: string | null;
  @RequiredUuid('Origin location.') origin_location_id: string;
  @RequiredUuid('Destination location.') destination_location_id: string;
  @OptionalUuid('Default carrier.') carrier_id?: string | null;
  @OptionalUuid('Receiver.') receiver_id?: string | null;
  @OptionalUuid('Alert preset applied to the devices of shipments created from the template.') alert_preset_id?: string | null;

  @ApiPropertyOptional({ type: [TransportLegDto], maxItems: MAX_TRANSPORT_LEGS, default: [], description: 'Legs in travel order; replaced as a whole.' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_TRANSPORT_LEGS)
  @ValidateNested({ each: true })
  @Type(() => TransportLegDto)
  transport_legs?: TransportLegDto[];
}

/** PATCH: any subset of the writable fields; required fields cannot be set to null. */
export class UpdateShipmentTemplateDto extends PartialType(CreateShipmentTemplateDto, { skipNullProperties: false }) {}
