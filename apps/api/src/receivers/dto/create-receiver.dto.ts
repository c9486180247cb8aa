import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsEmail, ValidateNested } from 'class-validator';
import { OptionalCountry, OptionalEmail, OptionalPhone, OptionalText, RequiredText } from '../../common/catalogue/field-decorators';
import { OptionalNotNull } from '../../common/validators';
import { DeliveryPartyDto } from './delivery-party.dto';

export const MAX_NOTIFICATION_EMAILS = 20;
export const MAX_DELIVERY_PARTIES = 20;

/** The writable fields of a receiver (POST and PUT). Anything else is refused. */
export class CreateReceiverDto {
  @RequiredText(200, 'Ankara City Hospital Pharmacy') name: string;
  @OptionalText(200, 'Üniversiteler Mh. 1604. Cd. 9') address_line1?: string | null;
  @OptionalText(200) address_line2?: string | null;
  @OptionalText(100, 'Ankara') city?: string | null;
  @OptionalText(100) region?: string | null;
  @OptionalText(20, '06800') postal_code?: string | null;
  @OptionalCountry() country?: string | null;
  @OptionalText(200, 'Mehmet Demir') contact_name?: string | null;
  @OptionalEmail('receiving@hospital.example') contact_email?: string | null;
  @OptionalPhone() contact_phone?: string | null;

  @ApiPropertyOptional({
    type: [String],
    format: 'email',
    maxItems: MAX_NOTIFICATION_EMAILS,
    uniqueItems: true,
    default: [],
    description: 'Addresses notified about shipments to this receiver.',
    example: ['alerts@hospital.example'],
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_NOTIFICATION_EMAILS)
  @ArrayUnique()
  @IsEmail({}, { each: true })
  notification_emails?: string[];

  @ApiPropertyOptional({ type: [DeliveryPartyDto], maxItems: MAX_DELIVERY_PARTIES, default: [], description: 'Contacts at the receiving end; replaced as a whole.' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_DELIVERY_PARTIES)
  @ValidateNested({ each: true })
  @Type(() => DeliveryPartyDto)
  delivery_parties?: DeliveryPartyDto[];
}

/** PATCH: any subset of the writable fields; required fields cannot be set to null. */
export class UpdateReceiverDto extends PartialType(CreateReceiverDto, { skipNullProperties: false }) {}
