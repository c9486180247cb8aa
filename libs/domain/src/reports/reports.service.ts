import type { DataSource } from 'typeorm';
import { NotFoundError } from '../errors';
import { findReportRow, listReportRows, reportRowsByIds, type ReportRow } from './reports.repository';
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

  /** The account's reports among these ids (those that exist). */
  byIds(accountId: AccountId, reportIds: readonly string[]): Promise<ReportRow[]> {
    return reportRowsByIds(this.dataSource, accountId, reportIds);
  }
}
