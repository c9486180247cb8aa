import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { defaultIngestCollaborators, TelemetryIngestService } from '@app/domain';
import { DevicesModule } from '../devices/devices.module';
import { TelemetryQueueConsumer } from './telemetry-queue.consumer';
import { TelemetryController } from './telemetry.controller';
import { TelemetryRepository } from './telemetry.repository';
import { TelemetryService } from './telemetry.service';

@Module({
  imports: [DevicesModule],
  controllers: [TelemetryController],
  providers: [
    TelemetryRepository,
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
