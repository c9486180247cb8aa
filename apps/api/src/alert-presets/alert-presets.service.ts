import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AlertPreset } from '@app/database';
import { CatalogueService } from '../common/catalogue/catalogue.service';
import { ALERT_PRESETS } from './alert-presets.family';
import type { CreateAlertPresetDto } from './dto/create-alert-preset.dto';

@Injectable()
export class AlertPresetsService extends CatalogueService<AlertPreset, CreateAlertPresetDto> {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource, ALERT_PRESETS);
  }
}
