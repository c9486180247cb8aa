import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AisIngestService } from '@app/domain';
import { AisQueueConsumer } from './ais-queue.consumer';

/** AIS vessel positions: the feed queue consumer (no HTTP routes; positions show in shipment details). */
@Module({
  providers: [
    { provide: AisIngestService, useFactory: (dataSource: DataSource) => new AisIngestService(dataSource), inject: [getDataSourceToken()] },
    AisQueueConsumer,
  ],
  exports: [AisIngestService, AisQueueConsumer],
})
export class AisModule {}
