import { ApiProperty } from '@nestjs/swagger';
import { TRANSPORT_MODES, type Carrier } from '@app/database';
import { NullableString } from '../../common/catalogue/field-decorators';

export class CarrierDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Aegean Reefer Lines' }) name: string;
  @ApiProperty({ enum: TRANSPORT_MODES }) mode: string;
  @NullableString() contact_name: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'email' }) contact_email: string | null;
  @NullableString('E.164') contact_phone: string | null;
  @NullableString('Standard Carrier Alpha Code') scac: string | null;
  @NullableString('IATA airline designator') iata_code: string | null;
  @NullableString('MMSI, 9 digits') mmsi: string | null;
  @NullableString('IMO ship number, 7 digits') imo: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;

  static from(carrier: Carrier): CarrierDto {
    return {
      id: carrier.id,
      name: carrier.name,
      mode: carrier.mode,
      contact_name: carrier.contactName,
      contact_email: carrier.contactEmail,
      contact_phone: carrier.contactPhone,
      scac: carrier.scac,
      iata_code: carrier.iataCode,
      mmsi: carrier.mmsi,
      imo: carrier.imo,
      created_at: carrier.createdAt.toISOString(),
      updated_at: carrier.updatedAt.toISOString(),
    };
  }
}
