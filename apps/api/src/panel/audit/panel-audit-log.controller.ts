import { Controller, Get, Param, Query, Req, Res, UseFilters } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { DataSource } from 'typeorm';
import { findAuditEvent, listAuditEvents } from '@app/database';
import { BY_TIME_AND_UUID, type TimeAndId, UUID_PATTERN } from '@app/vocabulary';
import { InvalidCursorError } from '../../common/paging';
import { TwoWayPaginator } from '../../common/paginator';
import { PanelErrorFilter } from '../panel-error.filter';
import { PanelNotFound } from '../panel-errors';
import { PANEL_PATH } from '../panel-paths';
import { AUDIT_LOG_ROLES } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import { Panel, PanelSession } from '../session/panel-session.guard';
import { auditLogView, auditRecordView, type AuditLogModel } from './audit-log.views';
import { PanelPages } from '../ui/panel-pages';
import { parseAuditLogFilter } from './audit-log-filters';

/** Records per page of the audit log. */
export const AUDIT_LOG_PAGE_SIZE = 50;

/**
 * The company's audit trail (issue 30): the records `GET /audit-events/` serves, newest first,
 * with its filters and keyset paging; a record's page shows each changed field before and after.
 * Company administrators only (the trail names people, addresses and every change). Another
 * company's record is "not found".
 */
@PanelSession(...AUDIT_LOG_ROLES)
@ApiExcludeController()
@UseFilters(PanelErrorFilter)
@Controller(`${PANEL_PATH}/audit-log`)
export class PanelAuditLogController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly paginator: TwoWayPaginator,
    private readonly pages: PanelPages,
  ) {}

  @Get()
  async list(@Panel() panel: PanelContext, @Req() request: Request, @Res() response: Response, @Query() query: Record<string, unknown>): Promise<void> {
    const { input, filters, problems } = parseAuditLogFilter(query);
    const model: AuditLogModel = { input, problems, records: null, older: null, paged: false };
    if (problems.length > 0) return this.pages.send(response, panel, auditLogView(model));
    let page;
    try {
      page = this.paginator.start<TimeAndId>(request, BY_TIME_AND_UUID, AUDIT_LOG_PAGE_SIZE);
      // The pages link only onwards (older): a cursor pointing back was not made here.
      if (page.backward) throw new InvalidCursorError();
    } catch (error) {
      if (!(error instanceof InvalidCursorError)) throw error;
      const problem = { field: 'filters', message: 'That page link is out of date or was changed. The list starts again from the newest records.' };
      return this.pages.send(response, panel, auditLogView({ ...model, problems: [problem] }));
    }
    const rows = await listAuditEvents(this.dataSource, panel.account.id, filters, { limit: page.limit + 1, after: page.after });
    const shown = this.paginator.finish(request, page, rows, (row) => ({ at: row.position_at, id: row.id }));
    this.pages.send(response, panel, auditLogView({ ...model, records: shown.rows, older: shown.next, paged: page.after !== null }));
  }

  @Get(':record_id')
  async show(@Panel() panel: PanelContext, @Param('record_id') recordId: string, @Res() response: Response): Promise<void> {
    const row = UUID_PATTERN.test(recordId) ? await findAuditEvent(this.dataSource, panel.account.id, recordId.toLowerCase()) : null;
    if (!row) throw new PanelNotFound();
    this.pages.send(response, panel, auditRecordView(row));
  }
}
