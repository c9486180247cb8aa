import { ValidateIf } from 'class-validator';

/**
 * The field may be omitted, but when present it must pass the other validators — null included.
 * (`@IsOptional()` would let an explicit null through to a NOT NULL column.)
 */
export const OptionalNotNull = (): PropertyDecorator =>
  ValidateIf((object: Record<string, unknown>, value: unknown) => value !== undefined);
