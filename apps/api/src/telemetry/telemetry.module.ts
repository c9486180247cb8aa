import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { createTelemetryService, defaultIngestCollaborators, DevicesService, TelemetryIngestService, TelemetryService } from '@app/domain';
import { APP_CONFIG } from '../config/config.module';
import { DevicesModule } from '../devices/devices.module';
import { TelemetryQueueConsumer } from './telemetry-queue.consumer';
import { TelemetryController } from './telemetry.controller';

@Module({
  imports: [DevicesModule],
  controllers: [TelemetryController],
  providers: [
    {
      provide: TelemetryService,
      useFactory: (devices: DevicesService, dataSource: DataSource, config: AppConfig) =>
        createTelemetryService(devices, dataSource, { telemetryMaxRangeDays: config.telemetryMaxRangeDays }),
      inject: [DevicesService, getDataSourceToken(), APP_CONFIG],
    },
    {
      provide: TelemetryIngestService,
      useFactory: (dataSource: DataSource) => new TelemetryIngestService(dataSource, defaultIngestCollaborators()),
      inject: [getDataSourceToken()],
    },
    TelemetryQueueConsumer,
  ],
  exports: [TelemetryIngestService, TelemetryQueueConsumer],
})
export class TelemetryModule {}
