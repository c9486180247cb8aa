import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ReceiversService } from '@app/domain';
import { ReceiversController } from './receivers.controller';
import { RECEIVERS } from './receivers.family';

@Module({
  controllers: [ReceiversController],
  providers: [{ provide: ReceiversService, useFactory: (dataSource: DataSource) => new ReceiversService(dataSource, RECEIVERS), inject: [getDataSourceToken()] }],
})
export class ReceiversModule {}
