import { Body, Controller, Get, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  TARGET_NOT_ALLOWED,
  TARGET_UNREACHABLE,
  WebhookEndpointAlreadyCreatedError,
  WebhookEndpointLimitError,
  WebhookEndpointsService,
  WebhookInputError,
  WebhookNotFoundError,
  WebhookRecovery,
  type WebhookRecoveryPresetKey,
  type WebhookRecoverySuggestion,
  WebhookStateError,
  parseRecoverySince,
} from '@app/webhooks';
import { AccountLimit } from '../../common/rate-limits/rate-limits';
import { PanelErrorFilter } from '../panel-error.filter';
import { PANEL_PATH, panelPath } from '../panel-paths';
import { WEBHOOK_ROLES, mayManageWebhooks } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import { Panel, PanelSession } from '../session/panel-session.guard';
import { type FieldProblem, formList, formText } from '../ui/form-parts';
import { newSubmission, recordIdFor, submissionFrom } from '../ui/form-submission';
import { redirectTo, withNotice } from '../ui/layout';
import { noticeFrom, type NoticeCode } from '../ui/notices';
import { PanelPages } from '../ui/panel-pages';
import {
  ATTEMPTS_PAGE_PARAM,
  attemptsPage,
  endpointCreatedView,
  endpointDetailView,
  endpointFormView,
  endpointListView,
  rotateConfirmView,
  secretRotatedView,
} from './webhooks.views';
import { endpointHealthSection } from './webhook-health.views';
import {
  RECOVERY_PRESET_FIELD,
  RECOVERY_PREVIEW_ONLY_FIELD,
  RECOVERY_PREVIEWED_FIELD,
  RECOVERY_SINCE_FIELD,
  type RecoveryFormModel,
  recoveryFormView,
  recoveryQueuedView,
} from './webhook-recovery.views';

/** The relative quick choice a followed link names, if any (an unknown value is ignored). */
function followedPreset(value: unknown): WebhookRecoveryPresetKey | undefined {
  return value === 'last-hour' || value === 'last-24-hours' ? value : undefined;
}

/** Field messages a person can act on; the service's own wording otherwise. */
function fieldProblem(error: WebhookInputError, url: string): FieldProblem {
  if (error.field === 'url' && /^http:\/\//i.test(url.trim())) {
    return { field: 'url', message: 'Only https:// addresses are accepted: plain http:// would send your events and their signatures unencrypted. Use an https:// address.' };
  }
  const detail = error.message.slice(error.field.length + 2);
  // Refused targets say only this much: no resolved address, no hint whether the name exists.
  if (error.field === 'url' && detail === TARGET_NOT_ALLOWED) return { field: 'url', message: 'This address is not allowed.' };
  if (error.field === 'url' && detail === TARGET_UNREACHABLE) return { field: 'url', message: 'This address cannot be reached.' };
  const messages: Record<string, string> = {
    url: `This address cannot be used: ${detail}.`,
    events: 'Choose at least one event type to receive.',
    description: `The description is too long: ${detail}.`,
    signature_format: 'Choose one of the signature formats listed.',
  };
  return { field: error.field, message: messages[error.field] ?? detail };
}

/**
 * Settings → Webhooks (spec §6.1) on top of the shared endpoint service: every call is scoped to
 * the signed-in company's account, so another company's endpoint is "not found". Every signed-in
 * person of the company reads the endpoint list and an endpoint's page (issue 17: "administrators
 * and managers manage; others read"); every action — each POST, and the GET pages that are only
 * forms for one (`new`, `rotate-secret`, `recover`) — declares `@PanelSession(...WEBHOOK_ROLES)`
 * itself, which overrides the controller's (the guard reads roles with getAllAndOverride, handler
 * first). Signing secrets appear only on the responses that create them.
 * Registering endpoints and sending test events or resends make the service work (and send
 * requests to an address the tenant chose): they are limited per company (`@AccountLimit`).
 */
@PanelSession()
@ApiExcludeController()
@UseFilters(PanelErrorFilter)
@Controller(`${PANEL_PATH}/webhooks`)
export class PanelWebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly pages: PanelPages,
    private readonly recovery: WebhookRecovery,
  ) {}

  @Get()
  async list(@Panel() panel: PanelContext, @Res() response: Response, @Query('notice') notice: unknown): Promise<void> {
    const [endpoints, successRates] = await Promise.all([this.endpoints.list(panel.account.id), this.endpoints.successRates(panel.account.id)]);
    this.pages.send(response, panel, endpointListView(panel, endpoints, successRates), noticeFrom(notice));
  }

  @Get('new')
  @PanelSession(...WEBHOOK_ROLES)
  form(@Panel() panel: PanelContext, @Res() response: Response): void {
    this.pages.send(response, panel, endpointFormView(panel, { submission: newSubmission(), url: '', description: '', events: [], signatureFormat: 'service-v1', problems: [] }));
  }

  @Post()
  @PanelSession(...WEBHOOK_ROLES)
  @AccountLimit('webhook-endpoint-create-per-account')
  async create(@Panel() panel: PanelContext, @Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    const url = formText(body.url).trim();
    const description = formText(body.description);
    const events = formList(body.events);
    const signatureFormat = formText(body.signature_format) || 'service-v1';
    const submission = submissionFrom(body.submission);
    try {
      const created = await this.endpoints.create(panel.account.id, { id: recordIdFor(panel.account.id, 'webhook-endpoint', submission), url, events, description, signature_format: signatureFormat });
      this.pages.send(response, panel, endpointCreatedView(created));
    } catch (error) {
      if (error instanceof WebhookEndpointAlreadyCreatedError) return redirectTo(response, withNotice(panelPath('webhooks'), 'endpoint_already_created'));
      const problem =
        error instanceof WebhookInputError
          ? fieldProblem(error, url)
          : error instanceof WebhookEndpointLimitError
            ? { field: 'url', message: `This company already has ${error.limit} webhook endpoints, the most it can register. Delete one before adding another.` }
            : null;
      if (!problem) throw error;
      this.pages.send(response, panel, endpointFormView(panel, { submission, url, description, events, signatureFormat, problems: [problem] }));
    }
  }

  @Get(':endpoint_id')
  async show(
    @Panel() panel: PanelContext,
    @Param('endpoint_id') endpointId: string,
    @Res() response: Response,
    @Query('notice') notice: unknown,
    @Query(ATTEMPTS_PAGE_PARAM) page: unknown,
  ): Promise<void> {
    const endpoint = await this.endpoints.get(panel.account.id, endpointId);
    const [{ attempts, health }, recovery] = await Promise.all([
      this.endpoints.attemptsAndHealth(panel.account.id, endpointId),
      // Readers get no recovery form: no need to work out its suggestion.
      mayManageWebhooks(panel.user.role) ? this.recoveryForm(panel, endpointId, null) : Promise.resolve(undefined),
    ]);
    const view = endpointDetailView(panel, endpoint, attempts, endpointHealthSection(endpoint, health), recovery, attemptsPage(page, attempts.length));
    this.pages.send(response, panel, view, noticeFrom(notice));
  }

  @Post(':endpoint_id/test')
  @PanelSession(...WEBHOOK_ROLES)
  @AccountLimit('webhook-test-per-account')
  async sendTest(@Panel() panel: PanelContext, @Param('endpoint_id') endpointId: string, @Res() response: Response): Promise<void> {
    const notice = await this.outcome(() => this.endpoints.sendTestEvent(panel.account.id, endpointId), 'test_queued');
    redirectTo(response, withNotice(panelPath('webhooks', endpointId), notice));
  }

  @Post(':endpoint_id/resend')
  @PanelSession(...WEBHOOK_ROLES)
  @AccountLimit('webhook-test-per-account')
  async resend(@Panel() panel: PanelContext, @Param('endpoint_id') endpointId: string, @Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    await this.endpoints.get(panel.account.id, endpointId);
    const notice = await this.outcome(() => this.endpoints.resend(panel.account.id, endpointId, formText(body.event_id)), 'resend_queued');
    redirectTo(response, withNotice(panelPath('webhooks', endpointId), notice));
  }

  /**
   * Re-enables the endpoint. One that was disabled goes on to the recovery form, pre-filled with
   * when it started failing (taken now: enabling clears the disable time).
   */
  @Post(':endpoint_id/enable')
  @PanelSession(...WEBHOOK_ROLES)
  async enable(@Panel() panel: PanelContext, @Param('endpoint_id') endpointId: string, @Res() response: Response): Promise<void> {
    const before = await this.endpoints.get(panel.account.id, endpointId);
    const since = before.status === 'disabled' ? (await this.recovery.suggestSince(panel.account.id, endpointId)).since : null;
    await this.endpoints.enable(panel.account.id, endpointId);
    if (!since) return redirectTo(response, withNotice(panelPath('webhooks', endpointId), 'endpoint_enabled'));
    redirectTo(response, `${withNotice(panelPath('webhooks', endpointId, 'recover'), 'endpoint_enabled')}&${RECOVERY_SINCE_FIELD}=${encodeURIComponent(since)}`);
  }

  /** "Recover failed deliveries since …", offered after re-enabling; `since` pre-fills the form when it is a time. */
  @Get(':endpoint_id/recover')
  @PanelSession(...WEBHOOK_ROLES)
  async recoverForm(
    @Panel() panel: PanelContext,
    @Param('endpoint_id') endpointId: string,
    @Res() response: Response,
    @Query('notice') notice: unknown,
    @Query(RECOVERY_SINCE_FIELD) since: unknown,
    @Query(RECOVERY_PRESET_FIELD) preset: unknown,
  ): Promise<void> {
    const endpoint = await this.endpoints.get(panel.account.id, endpointId);
    // Right after re-enabling, `since` is the suggestion taken before (enabling clears the disable time).
    const suggested = noticeFrom(notice) === 'endpoint_enabled' && typeof since === 'string' ? this.usableTime(since) : null;
    const model = await this.recoveryForm(panel, endpointId, since, suggested ? { since: suggested.toISOString(), fromFailures: true } : undefined, followedPreset(preset));
    this.pages.send(response, panel, recoveryFormView(panel, endpoint, model), noticeFrom(notice));
  }

  /**
   * Queues every event the endpoint missed since the chosen time, once each (WebhookRecovery); at
   * most WEBHOOK_RECOVERY_MAX_EVENTS a run. The form says how many it will send for the time it
   * shows: posted with another time (edited since), or with "Preview count", it shows the count for
   * the new time instead of sending. Managing roles only (others read the endpoint's page), and
   * counted against the company's hand-sent webhook work (like test events, resends).
   */
  @Post(':endpoint_id/recover')
  @PanelSession(...WEBHOOK_ROLES)
  @AccountLimit('webhook-test-per-account')
  async recover(@Panel() panel: PanelContext, @Param('endpoint_id') endpointId: string, @Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    const endpoint = await this.endpoints.get(panel.account.id, endpointId);
    const typed = formText(body[RECOVERY_SINCE_FIELD]);
    const previewed = formText(body[RECOVERY_PREVIEWED_FIELD]);
    try {
      const since = parseRecoverySince(typed);
      if (body[RECOVERY_PREVIEW_ONLY_FIELD] !== undefined || (previewed !== '' && Date.parse(previewed) !== since.getTime())) {
        const preview = await this.recovery.preview(panel.account.id, endpointId, since);
        return this.pages.send(response, panel, recoveryFormView(panel, endpoint, { ...(await this.recoveryForm(panel, endpointId, null)), since: preview.since, fromFailures: false, preview }));
      }
      const result = await this.recovery.recover(panel.account.id, endpointId, since);
      const resume = result.more && result.resume_since ? await this.recoveryForm(panel, endpointId, result.resume_since) : null;
      this.pages.send(response, panel, recoveryQueuedView(panel, endpoint, result, resume));
    } catch (error) {
      if (error instanceof WebhookStateError) return redirectTo(response, withNotice(panelPath('webhooks', endpointId), error.code));
      if (!(error instanceof WebhookInputError)) throw error;
      const detail = error.message.slice(error.field.length + 2);
      const message = typed.trim() === '' || detail.startsWith('expected') ? 'Enter the date and time (UTC) to recover from, such as 2026-11-26 06:00.' : `This time ${detail}.`;
      const model = { ...(await this.recoveryForm(panel, endpointId, null)), since: typed, preview: null, problems: [{ field: RECOVERY_SINCE_FIELD, message }] };
      this.pages.send(response, panel, recoveryFormView(panel, endpoint, model));
    }
  }

  /**
   * The recovery form's model: `since` if it is a usable time, else the suggestion (when the
   * endpoint started failing), with the quick choices and the count it would send now.
   */
  private async recoveryForm(panel: PanelContext, endpointId: string, since: unknown, suggested?: WebhookRecoverySuggestion, followed?: WebhookRecoveryPresetKey): Promise<RecoveryFormModel> {
    const suggestion = suggested ?? (await this.recovery.suggestSince(panel.account.id, endpointId));
    const chosen = typeof since === 'string' ? this.usableTime(since) : null;
    const start = chosen ?? new Date(suggestion.since);
    return {
      since: start.toISOString(),
      fromFailures: chosen ? chosen.getTime() === Date.parse(suggestion.since) && suggestion.fromFailures : suggestion.fromFailures,
      earliest: this.recovery.earliest().toISOString(),
      now: new Date().toISOString(),
      presets: this.recovery.presets(suggestion, followed && chosen ? { key: followed, since: chosen.toISOString() } : undefined),
      preview: await this.recovery.preview(panel.account.id, endpointId, start).catch((error: unknown) => {
        if (error instanceof WebhookInputError) return null; // a time the form then refuses, with its reason
        throw error;
      }),
      problems: [],
    };
  }

  /** A time a recovery would accept, else null. */
  private usableTime(text: string): Date | null {
    try {
      return parseRecoverySince(text);
    } catch {
      return null;
    }
  }

  /** Opts the endpoint in to (or out of) the Standard Webhooks headers; the secret stays. */
  @Post(':endpoint_id/signature-format')
  @PanelSession(...WEBHOOK_ROLES)
  async signatureFormat(@Panel() panel: PanelContext, @Param('endpoint_id') endpointId: string, @Body() body: Record<string, unknown>, @Res() response: Response): Promise<void> {
    let notice: NoticeCode = 'signature_format_saved';
    try {
      await this.endpoints.update(panel.account.id, endpointId, { signature_format: formText(body.signature_format) });
    } catch (error) {
      if (!(error instanceof WebhookInputError)) throw error;
      notice = 'signature_format_invalid';
    }
    redirectTo(response, withNotice(panelPath('webhooks', endpointId), notice));
  }

  @Get(':endpoint_id/rotate-secret')
  @PanelSession(...WEBHOOK_ROLES)
  async confirmRotate(@Panel() panel: PanelContext, @Param('endpoint_id') endpointId: string, @Res() response: Response): Promise<void> {
    this.pages.send(response, panel, rotateConfirmView(panel, await this.endpoints.get(panel.account.id, endpointId)));
  }

  @Post(':endpoint_id/rotate-secret')
  @PanelSession(...WEBHOOK_ROLES)
  async rotate(@Panel() panel: PanelContext, @Param('endpoint_id') endpointId: string, @Res() response: Response): Promise<void> {
    const rotated = await this.endpoints.rotateSecret(panel.account.id, endpointId);
    this.pages.send(response, panel, secretRotatedView(rotated.endpoint, rotated.signing_secret));
  }

  /** Runs an action on an endpoint that exists; refusals in its current state become notices. */
  private async outcome(action: () => Promise<unknown>, success: NoticeCode): Promise<NoticeCode> {
    try {
      await action();
      return success;
    } catch (error) {
      if (error instanceof WebhookStateError) return error.code;
      if (error instanceof WebhookNotFoundError && success === 'resend_queued') return 'event_not_found';
      throw error;
    }
  }
}
