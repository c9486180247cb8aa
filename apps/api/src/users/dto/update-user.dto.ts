import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { E164_PATTERN } from '../../common/catalogue/field-decorators';
import { OptionalNotNull } from '../../common/validators';
import { ROLE_VALUES, type Role } from '@app/vocabulary';

export const LOCALE_PATTERN = /^[a-z]{2,3}(-[A-Z]{2})?$/;

/** Profile fields and the role. E-mail, activity and platform flags are not writable (400). */
export class UpdateUserDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: 'Ayşe Kaya' }) @OptionalNotNull() @IsString() @Length(1, 200) full_name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: E164_PATTERN.source, description: 'E.164; null clears it.', example: '+905321234567' })
  @IsOptional()
  @IsString()
  @Matches(E164_PATTERN, { message: '$property must be an E.164 phone number such as +905321234567' })
  phone?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: LOCALE_PATTERN.source, description: 'BCP 47 language tag; null clears it.', example: 'tr-TR' })
  @IsOptional()
  @IsString()
  @Matches(LOCALE_PATTERN, { message: '$property must be a language tag such as en or tr-TR' })
  locale?: string | null;

  @ApiPropertyOptional({
    enum: ROLE_VALUES,
    description: 'An assignable role (see GET /roles/). `COMPANY_ADMIN` cannot be granted (409 `role_not_assignable`) and a company administrator’s role cannot be changed (409 `company_admin_protected`).',
    example: 'OPERATOR',
  })
  @OptionalNotNull()
  @IsIn(ROLE_VALUES)
  role?: Role;
}
