import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, IsUrl, Length, Matches, MaxLength } from 'class-validator';
import { OptionalNotNull } from '../../common/validators';
import type { Account } from '@app/database';

export class SubscriptionDto {
  @ApiProperty({ example: 'enterprise' }) plan: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) valid_until: string | null;
}

/** The safe profile of a company: no kind, no internal flags. */
export class AccountDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['active'], description: 'Read-only. Only active accounts are visible.' }) status: string;
  @ApiProperty({ type: SubscriptionDto, description: 'Read-only.' }) subscription: SubscriptionDto;
  @ApiProperty({ type: String, nullable: true }) legal_name: string | null;
  @ApiProperty({ type: String, nullable: true }) tax_id: string | null;
  @ApiProperty({ type: String, nullable: true }) registration_number: string | null;
  @ApiProperty({ type: String, nullable: true }) contact_name: string | null;
  @ApiProperty({ type: String, nullable: true }) contact_email: string | null;
  @ApiProperty({ type: String, nullable: true }) contact_phone: string | null;
  @ApiProperty({ type: String, nullable: true }) website: string | null;
  @ApiProperty({ type: String, nullable: true }) address_line1: string | null;
  @ApiProperty({ type: String, nullable: true }) address_line2: string | null;
  @ApiProperty({ type: String, nullable: true }) city: string | null;
  @ApiProperty({ type: String, nullable: true }) postal_code: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 3166-1 alpha-2' }) country: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Europe/Istanbul' }) timezone: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;

  static from(account: Account): AccountDto {
    return {
      id: account.id,
      name: account.name,
      status: account.status,
      subscription: {
        plan: account.subscriptionPlan,
        valid_until: account.subscriptionValidUntil ? account.subscriptionValidUntil.toISOString() : null,
      },
      legal_name: account.legalName,
      tax_id: account.taxId,
      registration_number: account.registrationNumber,
      contact_name: account.contactName,
      contact_email: account.contactEmail,
      contact_phone: account.contactPhone,
      website: account.website,
      address_line1: account.addressLine1,
      address_line2: account.addressLine2,
      city: account.city,
      postal_code: account.postalCode,
      country: account.country,
      timezone: account.timezone,
      created_at: account.createdAt.toISOString(),
      updated_at: account.updatedAt.toISOString(),
    };
  }
}

const nullableText = (max: number) => [IsOptional(), IsString(), MaxLength(max)];
function Text(max: number): PropertyDecorator {
  return (target, key) => nullableText(max).forEach((d) => d(target, key));
}

/**
 * Customer-managed contact and legal profile fields. `status`, `subscription` and anything else
 * are refused as unknown fields (400). Send null to clear an optional field.
 */
export class UpdateAccountDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 }) @OptionalNotNull() @IsString() @Length(1, 200) name?: string;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 }) @Text(200) legal_name?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 64 }) @Text(64) tax_id?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 64 }) @Text(64) registration_number?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 }) @Text(200) contact_name?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, format: 'email' })
  @IsOptional() @IsEmail() @MaxLength(254) contact_email?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 40 }) @Text(40) contact_phone?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, format: 'uri' })
  @IsOptional() @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }) @MaxLength(500) website?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 }) @Text(200) address_line1?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 }) @Text(200) address_line2?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 100 }) @Text(100) city?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 20 }) @Text(20) postal_code?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, pattern: '^[A-Z]{2}$' })
  @IsOptional() @IsString() @Matches(/^[A-Z]{2}$/, { message: 'country must be an ISO 3166-1 alpha-2 code' }) country?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 64 }) @Text(64) timezone?: string | null;
}
