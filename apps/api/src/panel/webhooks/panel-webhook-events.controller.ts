import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { UUID_PATTERN, BY_TIME_AND_UUID, type TimeAndId } from '@app/vocabulary';
import { WebhookBulkResend, WebhookEndpointsService, WebhookEventLog, WebhookNotFoundError, WebhookStateError, type WebhookBulkResendCount } from '@app/webhooks';
import { AccountLimit } from '../../common/rate-limits/rate-limits';
import { InvalidCursorError } from '../../common/paging';
import { TwoWayPaginator } from '../../common/paginator';
import { PanelErrorFilter } from '../panel-error.filter';
import { PANEL_PATH } from '../panel-paths';
import { WEBHOOK_ROLES } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import { Panel, PanelSession } from '../session/panel-session.guard';
import { formText, type FieldProblem } from '../ui/form-parts';
import { redirectTo, withNotice } from '../ui/layout';
import { noticeFrom, type NoticeCode } from '../ui/notices';
import { PanelPages } from '../ui/panel-pages';
import { EVENT_LOG, eventDetailView, eventLogView, eventPath, type EventLogModel } from './webhook-events.views';
import { parseEventLogFilter, type EventLogFilterInput } from './event-log-filters';
import { mayManageWebhooks } from '../panel-roles';

/** Events per page of the log. */
export const EVENT_LOG_PAGE_SIZE = 25;

const BAD_CURSOR: FieldProblem = { field: 'filters', message: 'That page link is out of date or was changed. The list starts again from the newest events.' };

/**
 * The webhook event log (issue 17 §2): the company's events of the last WEBHOOK_RETENTION_DAYS
 * with their delivery outcome, newest first with keyset paging, filters and a search by event id;
 * an event's page shows its payload and its attempts per endpoint. Every signed-in person of the
 * company reads it; administrators and managers may send an event again (as on the endpoint's
 * page, limited per company). Another company's event is "not found".
 */
@PanelSession()
@ApiExcludeController()
@UseFilters(PanelErrorFilter)
@Controller(`${PANEL_PATH}/webhook-events`)
export class PanelWebhookEventsController {
  constructor(
    private readonly log: WebhookEventLog,
    private readonly endpoints: WebhookEndpointsService,
    private readonly paginator: TwoWayPaginator,
    private readonly pages: PanelPages,
    private readonly bulk: WebhookBulkResend,
  ) {}

  @Get()
  async list(@Panel() panel: PanelContext, @Req() request: Request, @Res() response: Response, @Query() query: Record<string, unknown>): Promise<void> {
    const endpoints = await this.endpointChoices(panel);
    const { input, filter, problems } = parseEventLogFilter(query, endpoints.map((e) => e.id));
    const model = this.unlistedModel(endpoints, input, problems, formText(query.event_id).trim());
    if (query.event_id !== undefined) return this.search(panel, response, model);
    if (problems.length > 0) return this.pages.send(response, panel, eventLogView(panel, model));
    let page;
    try {
      page = this.paginator.start<TimeAndId>(request, BY_TIME_AND_UUID, EVENT_LOG_PAGE_SIZE);
    } catch (error) {
      if (!(error instanceof InvalidCursorError)) throw error;
      return this.pages.send(response, panel, eventLogView(panel, { ...model, problems: [BAD_CURSOR] }));
    }
    const found = await this.log.list(panel.account.id, filter, { after: page.after, limit: page.limit + 1, newer: page.backward });
    // With one endpoint chosen, administrators and managers may send the listed events to it again.
    let bulk: WebhookBulkResendCount | null = null;
    if (filter.endpoint && mayManageWebhooks(panel.user.role)) bulk = await this.bulk.preview(panel.account.id, filter.endpoint, filter);
    const shown = this.paginator.finish(request, page, found.entries, (row) => row.position, found.frontier?.position ?? null);
    // A page cut short by the scan budget says how far it looked (its last event is not the end).
    const searchedTo = found.frontier && found.entries.length <= page.limit ? found.frontier.at : null;
    this.pages.send(
      response,
      panel,
      eventLogView(panel, { ...model, bulk, events: shown.rows, newer: shown.previous, older: shown.next, paged: page.after !== null, searchedTo, searchedNewer: page.backward }),
      noticeFrom(query.notice),
    );
  }

  /**
   * Bulk resend (issue 31 item 4): the events the log lists under the posted filters, which must
   * name one endpoint, are queued to it again (WebhookBulkResend); one action against the
   * company's hourly budget of test events, resends and recoveries. Back to the same filtered log.
   */
  @Post('resend')
  @PanelSession(...WEBHOOK_ROLES)
  @AccountLimit('webhook-test-per-account')
  async resendListed(@Panel() panel: PanelContext, @Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    const endpoints = await this.endpointChoices(panel);
    const { input, filter, problems } = parseEventLogFilter(body, endpoints.map((e) => e.id));
    if (!filter.endpoint && problems.length === 0) problems.push({ field: 'endpoint', message: 'Choose the endpoint to send the listed events to.' });
    if (problems.length > 0) {
      return this.pages.send(response, panel, eventLogView(panel, this.unlistedModel(endpoints, input, problems)));
    }
    let notice: NoticeCode;
    try {
      const result = await this.bulk.resend(panel.account.id, filter.endpoint as string, filter);
      notice = result.queued === 0 ? 'bulk_resend_none' : result.more ? 'bulk_resend_partial' : 'bulk_resend_queued';
    } catch (error) {
      if (!(error instanceof WebhookStateError)) throw error;
      notice = error.code;
    }
    redirectTo(response, `${EVENT_LOG}?${filterQuery(input)}&notice=${notice}`);
  }

  @Get(':event_id')
  async show(@Panel() panel: PanelContext, @Param('event_id') eventId: string, @Res() response: Response, @Query('notice') notice: unknown): Promise<void> {
    this.pages.send(response, panel, eventDetailView(panel, await this.log.get(panel.account.id, eventId)), noticeFrom(notice));
  }

  @Post(':event_id/resend')
  @PanelSession(...WEBHOOK_ROLES)
  @AccountLimit('webhook-test-per-account')
  async resend(@Panel() panel: PanelContext, @Param('event_id') eventId: string, @Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    const event = await this.log.get(panel.account.id, eventId);
    const endpointId = formText(body.endpoint_id);
    // Only an endpoint the event was queued for: anything else is not this page's to send.
    if (!event.endpoints.some((e) => e.endpoint_id === endpointId)) throw new WebhookNotFoundError(`no delivery of ${eventId} to ${endpointId}`);
    let notice: NoticeCode = 'resend_queued';
    try {
      await this.endpoints.resend(panel.account.id, endpointId, event.event_id);
    } catch (error) {
      if (error instanceof WebhookStateError) notice = error.code;
      else if (error instanceof WebhookNotFoundError) notice = 'event_not_found';
      else throw error;
    }
    redirectTo(response, withNotice(eventPath(event.event_id), notice));
  }

  /** The log's page before any event is listed: the form as typed, its problems, no rows. */
  private unlistedModel(endpoints: EventLogModel['endpoints'], input: EventLogFilterInput, problems: FieldProblem[], search = ''): EventLogModel {
    return {
      endpoints,
      bulk: null,
      input,
      search,
      problems,
      events: null,
      newer: null,
      older: null,
      paged: false,
      searchedTo: null,
      searchedNewer: false,
      retentionDays: this.log.options.retentionDays,
    };
  }

  /** The company's endpoints, for the endpoint filter (and whether each can be sent to). */
  private async endpointChoices(panel: PanelContext): Promise<EventLogModel['endpoints']> {
    return (await this.endpoints.list(panel.account.id)).map((e) => ({ id: e.id, url: e.url, enabled: e.status === 'enabled' }));
  }

  /** An exact event id: that event's page; an unknown one (or another company's): the log with a "not found" problem. */
  private async search(panel: PanelContext, response: Response, model: EventLogModel): Promise<void> {
    const id = model.search.toLowerCase();
    if (!UUID_PATTERN.test(id)) {
      return this.pages.send(response, panel, eventLogView(panel, { ...model, problems: [{ field: 'event_id', message: 'An event ID has 36 characters, like 0193b7a2-5c1e-7d40-9a8b-2f4e6c8d0a1b.' }] }));
    }
    try {
      await this.log.get(panel.account.id, id);
    } catch (error) {
      if (!(error instanceof WebhookNotFoundError)) throw error;
      return this.pages.send(
        response,
        panel,
        eventLogView(panel, { ...model, status: 404, problems: [{ field: 'event_id', message: 'No event with this ID was queued for your company’s webhook endpoints.' }] }),
      );
    }
    redirectTo(response, eventPath(id));
  }
}

/** The filters as a query string, to show the same list again. */
function filterQuery(input: EventLogFilterInput): string {
  return new URLSearchParams(Object.entries(input).filter(([, value]) => value !== '')).toString();
}
