import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, IsUUID, Length, Matches, MaxLength } from 'class-validator';

/**
 * One decorator per common field shape of the catalogue DTOs: validation and documentation
 * together, so they cannot disagree. "Optional" fields are nullable (null clears them).
 */
export const RequiredText = (max: number, example?: string): PropertyDecorator =>
  applyDecorators(ApiProperty({ minLength: 1, maxLength: max, example }), IsString(), Length(1, max));

export const OptionalText = (max: number, example?: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength: max, example }),
    IsOptional(),
    IsString(),
    MaxLength(max),
  );

export const OptionalEmail = (example?: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, format: 'email', maxLength: 254, example }),
    IsOptional(),
    IsEmail(),
    MaxLength(254),
  );

export const E164_PATTERN = /^\+[1-9][0-9]{6,14}$/;

export const OptionalPhone = (example = '+905321234567'): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, pattern: E164_PATTERN.source, description: 'E.164 phone number.', example }),
    IsOptional(),
    IsString(),
    Matches(E164_PATTERN, { message: '$property must be an E.164 phone number such as +905321234567' }),
  );

export const OptionalCountry = (example = 'TR'): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code.', example }),
    IsOptional(),
    IsString(),
    Matches(/^[A-Z]{2}$/, { message: '$property must be an ISO 3166-1 alpha-2 code' }),
  );

/** The response side: a nullable string, documented. */
export const NullableString = (description?: string, example?: string): PropertyDecorator =>
  ApiProperty({ type: String, nullable: true, description, example });

export const RequiredUuid = (description: string): PropertyDecorator =>
  applyDecorators(ApiProperty({ format: 'uuid', description }), IsUUID());

export const OptionalUuid = (description: string): PropertyDecorator =>
  applyDecorators(ApiPropertyOptional({ type: String, nullable: true, format: 'uuid', description }), IsOptional(), IsUUID());
