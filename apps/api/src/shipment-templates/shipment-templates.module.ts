import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ShipmentTemplatesService } from '@app/domain';
import { ShipmentTemplatesController } from './shipment-templates.controller';
import { SHIPMENT_TEMPLATE_MAPPING } from './shipment-templates.family';

@Module({
  controllers: [ShipmentTemplatesController],
  providers: [
    {
      provide: ShipmentTemplatesService,
      useFactory: (dataSource: DataSource) => new ShipmentTemplatesService(dataSource, SHIPMENT_TEMPLATE_MAPPING),
      inject: [getDataSourceToken()],
    },
  ],
})
export class ShipmentTemplatesModule {}
