import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, ValidateNested } from 'class-validator';
import { LOCATION_KINDS, type LocationKind } from '@app/database';
import { OptionalCountry, OptionalText, RequiredText } from '../../common/catalogue/field-decorators';
import { OptionalNotNull } from '../../common/validators';
import { AutomationDto } from './automation.dto';
import { GeofenceProperty, type GeofenceDto } from './geofence.dto';

/** The writable fields of a location (POST and PUT). Anything else is refused. */
export class CreateLocationDto {
  @RequiredText(200, 'Izmir Port Cold Store') name: string;
  @ApiProperty({ enum: LOCATION_KINDS, example: 'port' }) @IsIn(LOCATION_KINDS) kind: LocationKind;
  @OptionalText(200, 'Liman Cd. 12') address_line1?: string | null;
  @OptionalText(200) address_line2?: string | null;
  @OptionalText(100, 'Izmir') city?: string | null;
  @OptionalText(100) region?: string | null;
  @OptionalText(20, '35220') postal_code?: string | null;
  @OptionalCountry() country?: string | null;
  @GeofenceProperty() geofence: GeofenceDto;

  @ApiPropertyOptional({ type: AutomationDto, description: 'Entry/exit automation; every trigger is off by default.' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => AutomationDto)
  automation?: AutomationDto;
}

/** PATCH: any subset of the writable fields; required fields cannot be set to null. */
export class UpdateLocationDto extends PartialType(CreateLocationDto, { skipNullProperties: false }) {}
