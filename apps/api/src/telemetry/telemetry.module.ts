import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { defaultIngestCollaborators, DevicesService, TelemetryIngestService, TelemetryRepository, TelemetryService } from '@app/domain';
import { APP_CONFIG } from '../config/config.module';
import { DevicesModule } from '../devices/devices.module';
import { TelemetryQueueConsumer } from './telemetry-queue.consumer';
import { TelemetryController } from './telemetry.controller';

@Module({
  imports: [DevicesModule],
  controllers: [TelemetryController],
  providers: [
    { provide: TelemetryRepository, useFactory: (dataSource: DataSource) => new TelemetryRepository(dataSource), inject: [getDataSourceToken()] },
    {
      provide: TelemetryService,
      useFactory: (devices: DevicesService, telemetry: TelemetryRepository, config: AppConfig) =>
        new TelemetryService(devices, telemetry, { telemetryMaxRangeDays: config.telemetryMaxRangeDays }),
      inject: [DevicesService, TelemetryRepository, APP_CONFIG],
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
