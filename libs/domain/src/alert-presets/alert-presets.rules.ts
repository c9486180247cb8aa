import type { ReferenceCheck } from '../catalogue';
import { ValidationFailedError } from '../errors';
import { REFERENCED_BY_DEVICE_SETTINGS, referencedByActiveShipments } from '../shipments';
import { referencedByShipmentTemplates } from '../shipment-templates';

const RANGES = [
  ['temperature_min', 'temperature_max'],
  ['humidity_min', 'humidity_max'],
] as const;

/** The bounds of an alert preset the range rule reads, as the record will be stored. */
export type AlertPresetRangeFields = Record<(typeof RANGES)[number][number], number | null>;

/** Checked on the stored result, so a PATCH of one bound is compared with the other bound. */
export function checkRanges(fields: AlertPresetRangeFields): void {
  const errors = RANGES.filter(([min, max]) => fields[min] !== null && fields[max] !== null && fields[min] >= fields[max]).map(([min, max]) => ({
    field: min,
    code: 'min_not_below_max',
    message: `${min} must be lower than ${max}`,
  }));
  if (errors.length > 0) throw new ValidationFailedError(errors);
}

/** Who may still point at an alert preset. */
export const ALERT_PRESET_REFERENCES: ReferenceCheck[] = [
  referencedByShipmentTemplates('alert_preset'),
  referencedByActiveShipments(['alert_preset_id']),
  REFERENCED_BY_DEVICE_SETTINGS,
];
