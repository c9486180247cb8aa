import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { defaultIngestCollaborators, TelemetryIngestService, TelemetryRepository } from '@app/domain';
import { DevicesModule } from '../devices/devices.module';
import { TelemetryQueueConsumer } from './telemetry-queue.consumer';
import { TelemetryController } from './telemetry.controller';
import { TelemetryService } from './telemetry.service';

@Module({
  imports: [DevicesModule],
  controllers: [TelemetryController],
  providers: [
    { provide: TelemetryRepository, useFactory: (dataSource: DataSource) => new TelemetryRepository(dataSource), inject: [getDataSourceToken()] },
    TelemetryService,
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
