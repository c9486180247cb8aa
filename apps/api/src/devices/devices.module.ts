import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DevicesRepository } from '@app/domain';
import { DevicesController } from './devices.controller';
import { DevicesService } from './devices.service';

@Module({
  controllers: [DevicesController],
  providers: [
    { provide: DevicesRepository, useFactory: (dataSource: DataSource) => new DevicesRepository(dataSource), inject: [getDataSourceToken()] },
    DevicesService,
  ],
  exports: [DevicesService],
})
export class DevicesModule {}
