import { AlertPreset } from '@app/database';
import { ValidationFailedError } from '../common/api-error';
import type { CatalogueFamily, ReferenceCheck, WritableFields } from '../common/catalogue/catalogue-family';
import { referencedByShipmentTemplates } from '../shipment-templates/shipment-template-references';
import type { CreateAlertPresetDto } from './dto/create-alert-preset.dto';
import { REFERENCED_BY_DEVICE_SETTINGS, referencedByActiveShipments } from '../shipments/shipment-references';

const RANGES = [
  ['temperature_min', 'temperature_max'],
  ['humidity_min', 'humidity_max'],
] as const;

/** Checked on the stored result, so a PATCH of one bound is compared with the other bound. */
export function checkRanges(fields: WritableFields<CreateAlertPresetDto>): void {
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

export const ALERT_PRESETS: CatalogueFamily<AlertPreset, CreateAlertPresetDto> = {
  entity: AlertPreset,
  noun: 'Alert preset',
  columns: {
    name: 'name',
    description: 'description',
    temperature_min: 'temperatureMin',
    temperature_max: 'temperatureMax',
    humidity_min: 'humidityMin',
    humidity_max: 'humidityMax',
    light_max: 'lightMax',
    shock_max: 'shockMax',
    battery_min: 'batteryMin',
    delay_minutes: 'delayMinutes',
  },
  defaults: {
    description: null,
    temperature_min: null,
    temperature_max: null,
    humidity_min: null,
    humidity_max: null,
    light_max: null,
    shock_max: null,
    battery_min: null,
    delay_minutes: 0,
  },
  check: async (_manager, _accountId, fields) => checkRanges(fields),
  references: ALERT_PRESET_REFERENCES,
};
