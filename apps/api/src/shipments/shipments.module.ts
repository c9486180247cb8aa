import { Module } from '@nestjs/common';
import { ReportsModule } from '../reports/reports.module';
import { ShareController } from './share.controller';
import { ShareService } from './share.service';
import { SharedShipmentService } from './shared-shipment.service';
import { ShipmentsController } from './shipments.controller';
import { ShipmentsService } from './shipments.service';
import { TrackingController } from './tracking.controller';
import { TrackingService } from './tracking.service';

@Module({
  imports: [ReportsModule],
  controllers: [ShipmentsController, ShareController, TrackingController],
  providers: [ShipmentsService, ShareService, TrackingService, SharedShipmentService],
  exports: [ShareService, SharedShipmentService],
})
export class ShipmentsModule {}
