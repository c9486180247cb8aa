import type { AlertPreset } from '@app/database';
import type { CatalogueMapping } from '@app/domain';
import type { CreateAlertPresetDto } from './dto/create-alert-preset.dto';

/**
 * The DTO-bound half of the alert preset family: API field → entity property (keyed by the create
 * DTO, so the two cannot drift apart) and the defaults of optional fields. The rules (ranges, who
 * references a preset) and the CRUD are framework-free: libs/domain/src/alert-presets/.
 */
export const ALERT_PRESETS: CatalogueMapping<AlertPreset, CreateAlertPresetDto> = {
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
};
