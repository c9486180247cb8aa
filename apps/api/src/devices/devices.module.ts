import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createDevicesService, DevicesService } from '@app/domain';
import { DevicesController } from './devices.controller';

@Module({
  controllers: [DevicesController],
  providers: [
    { provide: DevicesService, useFactory: (dataSource: DataSource) => createDevicesService(dataSource), inject: [getDataSourceToken()] },
  ],
  exports: [DevicesService],
})
export class DevicesModule {}
