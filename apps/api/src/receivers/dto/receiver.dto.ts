import { ApiProperty } from '@nestjs/swagger';
import type { Receiver } from '@app/database';
import { presentAddress } from '../../common/catalogue/address';
import { NullableString } from '../../common/catalogue/field-decorators';
import { DeliveryPartyDto } from './delivery-party.dto';

export class ReceiverDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Ankara City Hospital Pharmacy' }) name: string;
  @NullableString() address_line1: string | null;
  @NullableString() address_line2: string | null;
  @NullableString() city: string | null;
  @NullableString() region: string | null;
  @NullableString() postal_code: string | null;
  @NullableString('ISO 3166-1 alpha-2') country: string | null;
  @NullableString() contact_name: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'email' }) contact_email: string | null;
  @NullableString('E.164') contact_phone: string | null;
  @ApiProperty({ type: [String], format: 'email' }) notification_emails: string[];
  @ApiProperty({ type: [DeliveryPartyDto] }) delivery_parties: DeliveryPartyDto[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;

  static from(receiver: Receiver): ReceiverDto {
    return {
      id: receiver.id,
      name: receiver.name,
      ...presentAddress(receiver),
      contact_name: receiver.contactName,
      contact_email: receiver.contactEmail,
      contact_phone: receiver.contactPhone,
      notification_emails: receiver.notificationEmails,
      delivery_parties: receiver.deliveryParties,
      created_at: receiver.createdAt.toISOString(),
      updated_at: receiver.updatedAt.toISOString(),
    };
  }
}
