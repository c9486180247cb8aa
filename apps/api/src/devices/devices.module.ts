import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DevicesRepository, DevicesService } from '@app/domain';
import { DevicesController } from './devices.controller';

@Module({
  controllers: [DevicesController],
  providers: [
    { provide: DevicesRepository, useFactory: (dataSource: DataSource) => new DevicesRepository(dataSource), inject: [getDataSourceToken()] },
    {
      provide: DevicesService,
      useFactory: (devices: DevicesRepository, dataSource: DataSource) => new DevicesService(devices, dataSource),
      inject: [DevicesRepository, getDataSourceToken()],
    },
  ],
  exports: [DevicesService],
})
export class DevicesModule {}
