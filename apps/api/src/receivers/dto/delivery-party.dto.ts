import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { DELIVERY_PARTY_ROLES, type DeliveryPartyRole } from '@app/database';
import { OptionalEmail, OptionalPhone, RequiredText } from '../../common/catalogue/field-decorators';

/** A contact at the receiving end. Initialisers give the stored nulls for fields not sent. */
export class DeliveryPartyDto {
  @RequiredText(200, 'Dr. Ayşe Kaya') name: string;
  @ApiProperty({ enum: DELIVERY_PARTY_ROLES, example: 'consignee' }) @IsIn(DELIVERY_PARTY_ROLES) role: DeliveryPartyRole;
  @OptionalEmail('pharmacy@hospital.example') email: string | null = null;
  @OptionalPhone() phone: string | null = null;
}
