import { Module } from '@nestjs/common';
import { ReportFileReader } from './report-file.reader';
import { ReportWorker } from './report-worker';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

@Module({ controllers: [ReportsController], providers: [ReportsService, ReportFileReader, ReportWorker], exports: [ReportWorker] })
export class ReportsModule {}
