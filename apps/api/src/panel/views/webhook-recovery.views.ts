import type { WebhookEndpointView, WebhookRecoveryResult } from '@app/webhooks';
import { html, type Html } from '../../pages/html';
import { panelPath } from '../panel-paths';
import { mayManageWebhooks } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import { describedBy, fieldError, type FieldProblem, problemSummary } from './form-parts';
import { csrfField, type PanelView, timeHtml } from './layout';

/** The recovery form's field: a datetime-local in UTC, to the minute (the value shape the browser sends back). */
export const RECOVERY_SINCE_FIELD = 'since';

export interface RecoveryFormModel {
  /** ISO time or a datetime-local value; shown as `YYYY-MM-DDTHH:MM`. */
  since: string;
  /** The pre-filled time is when the endpoint started failing or was disabled (not a default). */
  fromFailures: boolean;
  /** The earliest time a recovery reaches back to (WEBHOOK_RETENTION_DAYS). */
  earliest: string;
  problems: FieldProblem[];
}

/** `2026-11-26T06:00:00.000Z` → `2026-11-26T06:00` (a datetime-local value); other text is kept as typed. */
const localValue = (value: string): string => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/.test(value) ? value.slice(0, 16) : value);

const RECOVERY_HELP = html`Sends again, once each, every event this endpoint subscribes to from that time on that it did not accept with a 2xx: deliveries that failed, those cancelled when it was disabled, and events that were not sent to it while it was disabled. Events it already received, or that are already waiting to be sent, are not sent again. Times are UTC.`;

function recoveryForm(context: PanelContext, endpoint: WebhookEndpointView, model: RecoveryFormModel): Html {
  return html`${problemSummary(model.problems)}
<form method="post" action="${panelPath('webhooks', endpoint.id, 'recover')}" class="recovery" novalidate>
${csrfField(context)}
<label for="${RECOVERY_SINCE_FIELD}">Recover failed deliveries since (UTC)</label>
<input type="datetime-local" id="${RECOVERY_SINCE_FIELD}" name="${RECOVERY_SINCE_FIELD}" value="${localValue(model.since)}" min="${localValue(model.earliest)}" step="60" required${describedBy(model.problems, RECOVERY_SINCE_FIELD, 'recover-help')}>
<p class="hint" id="recover-help">${model.fromFailures ? html`Pre-filled with when this endpoint started failing. ` : html``}${RECOVERY_HELP}</p>
${fieldError(model.problems, RECOVERY_SINCE_FIELD)}
<div class="actions"><button type="submit">Recover failed deliveries</button></div>
</form>`;
}

/** The endpoint page's "Recover failed deliveries" section: the form for administrators and managers of an enabled endpoint. */
export function recoverySection(context: PanelContext, endpoint: WebhookEndpointView, model: RecoveryFormModel): Html {
  if (!mayManageWebhooks(context.user.role)) return html``;
  return html`<h2>Recover failed deliveries</h2>
${endpoint.status === 'enabled'
  ? recoveryForm(context, endpoint, model)
  : html`<p>Re-enable the endpoint first; you are then offered to send again, in one step, every event it missed.</p>`}`;
}

/** Offered right after re-enabling a disabled endpoint (and shown again when the form has a problem). */
export function recoveryFormView(context: PanelContext, endpoint: WebhookEndpointView, model: RecoveryFormModel): PanelView {
  const problems = model.problems.length > 0;
  return {
    nav: 'webhooks',
    status: problems ? 400 : 200,
    title: problems ? 'Error: recover failed deliveries' : 'Recover failed deliveries',
    body: html`<p class="breadcrumb"><a href="${panelPath('webhooks')}">Settings · Webhooks</a> · <a href="${panelPath('webhooks', endpoint.id)}">Endpoint</a></p>
<h1>Recover failed deliveries</h1>
<p>Endpoint <code>${endpoint.url}</code> is ${endpoint.status === 'enabled' ? 'enabled' : 'disabled'}. Send it the events it missed while it was failing or disabled.</p>
${endpoint.status === 'enabled' ? recoveryForm(context, endpoint, model) : html`<p>Re-enable the endpoint first.</p>`}
<p><a href="${panelPath('webhooks', endpoint.id)}">Not now: back to the endpoint</a></p>`,
  };
}

/** The outcome of a recovery: how many events were queued. */
export function recoveryQueuedView(context: PanelContext, endpoint: WebhookEndpointView, result: WebhookRecoveryResult): PanelView {
  const events = result.queued === 1 ? '1 event' : `${result.queued.toLocaleString('en')} events`;
  return {
    nav: 'webhooks',
    title: 'Recovery queued',
    body: html`<p class="breadcrumb"><a href="${panelPath('webhooks')}">Settings · Webhooks</a> · <a href="${panelPath('webhooks', endpoint.id)}">Endpoint</a></p>
<h1>Recovery queued</h1>
<p class="notice" role="status" id="recovery-result" data-queued="${String(result.queued)}"><strong>${events} queued</strong> to be sent again to <code>${endpoint.url}</code>, each once, from ${timeHtml(result.since)} on.</p>
${result.queued === 0 ? html`<p>Nothing was missing: every event since then was delivered or is already waiting to be sent.</p>` : html`<p>They are sent in the background, oldest first; their attempts appear in the endpoint's attempt list.</p>`}
${result.more && result.resume_since
  ? html`<div class="warning"><p>One recovery queues at most ${result.limit.toLocaleString('en')} events. More may be waiting: recover the rest from where this one stopped (nothing is sent twice).</p>
${recoveryForm(context, endpoint, { since: result.resume_since, fromFailures: false, earliest: result.since, problems: [] })}</div>`
  : html``}
<p><a href="${panelPath('webhooks', endpoint.id)}">Back to the endpoint</a></p>`,
  };
}
