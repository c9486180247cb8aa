import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { findReportRow, REPORT_ROW_COLUMNS, type ReportRow } from '@app/domain';
import { NotFoundError } from '../common/api-error';
import type { PageRequest } from '../common/paginator';
import type { ReportQueryDto } from './dto/report.dto';
import type { AccountId } from '@app/vocabulary';

@Injectable()
export class ReportsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Newest first (UUIDv7 ids are time ordered). */
  async list(accountId: AccountId, filters: ReportQueryDto, page: PageRequest): Promise<ReportRow[]> {
    const params: unknown[] = [accountId, page.limit + 1];
    const where = ['account_id = $1'];
    const add = (condition: (p: string) => string, value: unknown): void => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (filters.subject_type) add((p) => `subject_type = ${p}`, filters.subject_type);
    if (filters.shipment_id !== undefined) add((p) => `shipment_id = ${p}`, filters.shipment_id);
    if (filters.device_id) add((p) => `device_id = ${p}`, filters.device_id);
    const after = page.after?.[0];
    if (typeof after === 'string') add((p) => `id < ${p}`, after);
    return (await this.dataSource.query(`SELECT ${REPORT_ROW_COLUMNS} FROM reports WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $2`, params)) as ReportRow[];
  }

  async get(accountId: AccountId, reportId: string): Promise<ReportRow> {
    const row = await findReportRow(this.dataSource.manager, accountId, reportId);
    if (!row) throw new NotFoundError('Report');
    return row;
  }
}
