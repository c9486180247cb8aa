import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AlertPresetsService } from '@app/domain';
import { AlertPresetsController } from './alert-presets.controller';
import { ALERT_PRESETS } from './alert-presets.family';

@Module({
  controllers: [AlertPresetsController],
  providers: [{ provide: AlertPresetsService, useFactory: (dataSource: DataSource) => new AlertPresetsService(dataSource, ALERT_PRESETS), inject: [getDataSourceToken()] }],
})
export class AlertPresetsModule {}
