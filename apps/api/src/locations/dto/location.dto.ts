import { ApiProperty } from '@nestjs/swagger';
import { LOCATION_KINDS, type Location } from '@app/database';
import { presentAddress } from '../../common/catalogue/address';
import { NullableString } from '../../common/catalogue/field-decorators';
import { AutomationDto } from './automation.dto';
import { GEOFENCE_SCHEMA, type GeofenceDto } from './geofence.dto';

export class LocationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Izmir Port Cold Store' }) name: string;
  @ApiProperty({ enum: LOCATION_KINDS }) kind: string;
  @NullableString() address_line1: string | null;
  @NullableString() address_line2: string | null;
  @NullableString() city: string | null;
  @NullableString() region: string | null;
  @NullableString() postal_code: string | null;
  @NullableString('ISO 3166-1 alpha-2') country: string | null;
  @ApiProperty(GEOFENCE_SCHEMA) geofence: GeofenceDto;
  @ApiProperty({ type: AutomationDto }) automation: AutomationDto;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;

  static from(location: Location): LocationDto {
    return {
      id: location.id,
      name: location.name,
      kind: location.kind,
      ...presentAddress(location),
      geofence: location.geofence as GeofenceDto,
      automation: location.automation,
      created_at: location.createdAt.toISOString(),
      updated_at: location.updatedAt.toISOString(),
    };
  }
}
