import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, Matches, ValidateIf } from 'class-validator';
import { ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';
import { IsBoundedTimestamp } from './hostile-input';

/**
 * The field may be omitted, but when present it must pass the other validators — null included.
 * (`@IsOptional()` would let an explicit null through to a NOT NULL column.)
 */
export const OptionalNotNull = (): PropertyDecorator =>
  ValidateIf((object: Record<string, unknown>, value: unknown) => value !== undefined);

/** An optional query-string instant: strict ISO 8601 with a time zone, within the storable range (time-range filters). */
export function OptionalZonedTimestamp(description: string): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    IsOptional(),
    IsISO8601({ strict: true }),
    Matches(ZONED_TIMESTAMP_PATTERN, { message: '$property must be an ISO 8601 timestamp with a time zone' }),
    IsBoundedTimestamp(),
  ];
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}
