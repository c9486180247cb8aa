import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { ShareService, SharedShipmentService, ShipmentsService, TrackingService } from '@app/domain';
import { APP_CONFIG } from '../config/config.module';
import { ReportsModule } from '../reports/reports.module';
import { ReportWorker } from '../reports/report-worker';
import { ShareController } from './share.controller';
import { ShipmentsController } from './shipments.controller';
import { TrackingController } from './tracking.controller';

@Module({
  imports: [ReportsModule],
  controllers: [ShipmentsController, ShareController, TrackingController],
  providers: [
    {
      provide: ShipmentsService,
      useFactory: (dataSource: DataSource, reports: ReportWorker) => new ShipmentsService(dataSource, reports),
      inject: [getDataSourceToken(), ReportWorker],
    },
    {
      provide: ShareService,
      useFactory: (dataSource: DataSource, config: AppConfig) => new ShareService(dataSource, { secretsKey: config.secretsKey, publicBaseUrl: config.publicBaseUrl }),
      inject: [getDataSourceToken(), APP_CONFIG],
    },
    { provide: TrackingService, useFactory: (dataSource: DataSource) => new TrackingService(dataSource), inject: [getDataSourceToken()] },
    {
      provide: SharedShipmentService,
      useFactory: (dataSource: DataSource, tracking: TrackingService) => new SharedShipmentService(dataSource, tracking),
      inject: [getDataSourceToken(), TrackingService],
    },
  ],
  exports: [ShareService, SharedShipmentService],
})
export class ShipmentsModule {}
