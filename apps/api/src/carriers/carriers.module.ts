import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CarriersService } from '@app/domain';
import { CarriersController } from './carriers.controller';
import { CARRIERS } from './carriers.family';

@Module({
  controllers: [CarriersController],
  providers: [{ provide: CarriersService, useFactory: (dataSource: DataSource) => new CarriersService(dataSource, CARRIERS), inject: [getDataSourceToken()] }],
})
export class CarriersModule {}
