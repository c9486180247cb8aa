import type { DataSource } from 'typeorm';
import type { AlertPreset } from '@app/database';
import { type CatalogueMapping, CatalogueService } from '../catalogue';
import { ALERT_PRESET_REFERENCES, checkRanges, type AlertPresetRangeFields } from './alert-presets.rules';

/** Alert presets: the shared tenant CRUD with the preset rules; `mapping` is the api's DTO-bound half. */
export class AlertPresetsService<Input extends Partial<AlertPresetRangeFields>> extends CatalogueService<AlertPreset, Input> {
  constructor(dataSource: DataSource, mapping: CatalogueMapping<AlertPreset, Input>) {
    super(dataSource, {
      table: 'alert_presets',
      noun: 'Alert preset',
      ...mapping,
      check: async (_manager, _accountId, fields) => checkRanges(fields),
      references: ALERT_PRESET_REFERENCES,
    });
  }
}
