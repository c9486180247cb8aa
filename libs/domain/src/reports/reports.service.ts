import type { DataSource } from 'typeorm';
import { NotFoundError } from '../errors/api-error';
import type { ReportRow } from './report-record';
import { findReportRow, listReportRows } from './reports.repository';
import type { AccountId, KeysetPage } from '@app/vocabulary';

/** The list filters in API field names (the api's `ReportQueryDto` satisfies it). */
export interface ReportListFilters {
  subject_type?: 'shipment' | 'device';
  shipment_id?: number;
  device_id?: string;
}

export class ReportsService {
  constructor(private readonly dataSource: DataSource) {}

  /** Newest first (UUIDv7 ids are time ordered). */
  list(accountId: AccountId, filters: ReportListFilters, page: KeysetPage<string>): Promise<ReportRow[]> {
    return listReportRows(
      this.dataSource,
      accountId,
      { subjectType: filters.subject_type, shipmentId: filters.shipment_id, deviceId: filters.device_id, before: page.after },
      page.limit + 1,
    );
  }

  async get(accountId: AccountId, reportId: string): Promise<ReportRow> {
    const row = await findReportRow(this.dataSource, accountId, reportId);
    if (!row) throw new NotFoundError('Report');
    return row;
  }
}
