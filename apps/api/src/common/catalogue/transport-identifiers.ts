import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { isValidImoNumber } from '@app/vocabulary';

/** Shared with AIS ingestion, which validates vessel identifiers the same way. */
export { isValidImoNumber };

const optionalCode = (pattern: RegExp, description: string, example: string, message: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, pattern: pattern.source, description, example }),
    IsOptional(),
    IsString(),
    Matches(pattern, { message: `$property ${message}` }),
  );

export const OptionalScac = (): PropertyDecorator =>
  optionalCode(/^[A-Z]{2,4}$/, 'Standard Carrier Alpha Code (road, rail, sea, multimodal).', 'MAEU', 'must be a SCAC: 2 to 4 capital letters');

export const OptionalIataCode = (): PropertyDecorator =>
  optionalCode(/^[A-Z0-9]{2}$/, 'IATA airline designator (air, multimodal).', 'TK', 'must be an IATA airline designator: 2 capital letters or digits');

export const OptionalMmsi = (description = 'Maritime Mobile Service Identity of the vessel (sea, multimodal).'): PropertyDecorator =>
  optionalCode(/^[0-9]{9}$/, description, '271000123', 'must be an MMSI: 9 digits');

export const OptionalImo = (description = 'IMO ship number of the vessel (sea, multimodal), 7 digits with check digit.'): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, pattern: '^[0-9]{7}$', description, example: '9074729' }),
    IsOptional(),
    ValidateBy({
      name: 'isImoNumber',
      validator: {
        validate: isValidImoNumber,
        defaultMessage: (args) => `${args?.property ?? 'imo'} must be a 7-digit IMO number with a valid check digit, such as 9074729`,
      },
    }),
  );
