import { Module } from '@nestjs/common';
import { AlertPresetsController } from './alert-presets.controller';
import { AlertPresetsService } from './alert-presets.service';

@Module({ controllers: [AlertPresetsController], providers: [AlertPresetsService] })
export class AlertPresetsModule {}
