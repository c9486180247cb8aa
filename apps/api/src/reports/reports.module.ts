import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ReportFileReader, ReportsService } from '@app/domain';
import { ReportWorker } from './report-worker';
import { ReportsController } from './reports.controller';

@Module({
  controllers: [ReportsController],
  providers: [
    { provide: ReportsService, useFactory: (dataSource: DataSource) => new ReportsService(dataSource), inject: [getDataSourceToken()] },
    { provide: ReportFileReader, useFactory: (dataSource: DataSource) => new ReportFileReader(dataSource), inject: [getDataSourceToken()] },
    ReportWorker,
  ],
  exports: [ReportWorker],
})
export class ReportsModule {}
