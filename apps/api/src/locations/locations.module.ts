import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { LocationsService } from '@app/domain';
import { LocationsController } from './locations.controller';
import { LOCATIONS } from './locations.family';

@Module({
  controllers: [LocationsController],
  providers: [{ provide: LocationsService, useFactory: (dataSource: DataSource) => new LocationsService(dataSource, LOCATIONS), inject: [getDataSourceToken()] }],
})
export class LocationsModule {}
