import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { findReportRow, listReportRows, type ReportRow } from '@app/domain';
import { NotFoundError } from '../common/api-error';
import type { PageRequest } from '../common/paginator';
import type { ReportQueryDto } from './dto/report.dto';
import type { AccountId } from '@app/vocabulary';

@Injectable()
export class ReportsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Newest first (UUIDv7 ids are time ordered). */
  list(accountId: AccountId, filters: ReportQueryDto, page: PageRequest): Promise<ReportRow[]> {
    const after = page.after?.[0];
    return listReportRows(
      this.dataSource,
      accountId,
      { subjectType: filters.subject_type, shipmentId: filters.shipment_id, deviceId: filters.device_id, before: typeof after === 'string' ? after : null },
      page.limit + 1,
    );
  }

  async get(accountId: AccountId, reportId: string): Promise<ReportRow> {
    const row = await findReportRow(this.dataSource, accountId, reportId);
    if (!row) throw new NotFoundError('Report');
    return row;
  }
}
