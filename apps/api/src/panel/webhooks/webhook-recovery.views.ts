import type { WebhookEndpointView, WebhookRecoveryPreset, WebhookRecoveryPresetKey, WebhookRecoveryPreview, WebhookRecoveryResult } from '@app/webhooks';
import { html, type Html } from '../../common/html';
import { panelPath } from '../panel-paths';
import { mayManageWebhooks } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import { describedBy, fieldError, type FieldProblem, problemSummary, reasonField, utcMinute, utcTimeInput } from '../ui/form-parts';
import { csrfField, type PanelView, timeHtml } from '../ui/layout';

/** The recovery form's field: a date and time in UTC, to the minute, written as the panel writes times (`2026-11-26 06:00`). */
export const RECOVERY_SINCE_FIELD = 'since';
/** The start time the shown count was worked out for: a form posted with another time is previewed, not sent. */
export const RECOVERY_PREVIEWED_FIELD = 'previewed';
/** Posted by the "Preview count" button: preview only. */
export const RECOVERY_PREVIEW_ONLY_FIELD = 'preview';
/** Which quick choice a followed link was (`last-hour`, `last-24-hours`): it stays marked when the minute turned meanwhile. */
export const RECOVERY_PRESET_FIELD = 'preset';

export interface RecoveryFormModel {
  /** ISO time or the text as typed; shown as `YYYY-MM-DD HH:MM`. */
  since: string;
  /** The pre-filled time is when the endpoint started failing or was disabled (not a default). */
  fromFailures: boolean;
  /** The earliest time a recovery reaches back to (WEBHOOK_RETENTION_DAYS). */
  earliest: string;
  /** The current time, shown next to the field so that "UTC" is never a guess. */
  now: string;
  /** The quick choices (links that preview them). */
  presets: WebhookRecoveryPreset[];
  /** What sending from `since` would queue now; null when `since` is not a usable time. */
  preview: WebhookRecoveryPreview | null;
  problems: FieldProblem[];
}

const PRESET_NAMES: Record<WebhookRecoveryPresetKey, string> = {
  'last-hour': 'Last hour',
  'failing-since': 'Since it started failing',
  'last-24-hours': 'Last 24 hours',
};

const eventCount = (count: number): string => (count === 1 ? '1 event' : `${count.toLocaleString('en')} events`);

const RECOVERY_HELP = html`Sends again, once each, every event this endpoint subscribes to from that time on that it did not accept with a 2xx: deliveries that failed, those cancelled when it was disabled, and events that were not sent to it while it was disabled. Events it already received, or that are already waiting to be sent, are not sent again.`;

/** Links that put a preset's time into the form and preview its count (the recovery page). */
function presetLinks(endpoint: WebhookEndpointView, model: RecoveryFormModel): Html {
  const current = model.preview?.since;
  return html`<nav class="presets" aria-label="Quick choices"><ul>${model.presets.map(
    (preset) => html`<li><a href="${panelPath('webhooks', endpoint.id, 'recover')}?${RECOVERY_SINCE_FIELD}=${encodeURIComponent(preset.since)}&amp;${RECOVERY_PRESET_FIELD}=${preset.key}" data-preset="${preset.key}"${preset.since === current ? html` aria-current="true"` : html``}>${PRESET_NAMES[preset.key]}</a> <span class="hint">from ${utcMinute(preset.since)} UTC</span></li>`,
  )}</ul></nav>`;
}

/** "24 events will be sent again", for the time it was worked out for. */
function previewHtml(preview: WebhookRecoveryPreview | null): Html {
  if (!preview) return html``;
  const what = preview.more
    ? html`<strong>More than ${eventCount(preview.limit)} will be sent again</strong>: this recovery sends the first ${preview.limit.toLocaleString('en')}; run it again for the rest.`
    : preview.count === 0
      ? html`<strong>No event will be sent again</strong>: every event since then was delivered or is already waiting to be sent.`
      : html`<strong>${eventCount(preview.count)} will be sent again</strong>.`;
  return html`<p class="preview" id="recovery-preview" role="status" data-count="${String(preview.count)}" data-more="${String(preview.more)}">From ${timeHtml(preview.since)} on: ${what}</p>`;
}

function recoveryForm(context: PanelContext, endpoint: WebhookEndpointView, model: RecoveryFormModel): Html {
  return html`${problemSummary(model.problems)}
${presetLinks(endpoint, model)}
<form method="post" action="${panelPath('webhooks', endpoint.id, 'recover')}" class="recovery" novalidate>
${csrfField(context)}
${model.preview ? html`<input type="hidden" name="${RECOVERY_PREVIEWED_FIELD}" value="${model.preview.since}">` : html``}
<label for="${RECOVERY_SINCE_FIELD}">Recover failed deliveries since (UTC)</label>
${utcTimeInput({ id: RECOVERY_SINCE_FIELD, value: model.since, required: true, describedBy: describedBy(model.problems, RECOVERY_SINCE_FIELD, 'since-format recover-help') })}
<p class="hint" id="since-format">Year-month-day hour:minute in UTC, not your local time. It is now ${model.now.slice(0, 16).replace('T', ' ')} UTC; the earliest is ${model.earliest.slice(0, 16).replace('T', ' ')} UTC.</p>
${fieldError(model.problems, RECOVERY_SINCE_FIELD)}
${previewHtml(model.preview)}
<p class="hint" id="recover-help">${model.fromFailures ? html`Pre-filled with when this endpoint started failing. ` : html``}${RECOVERY_HELP}</p>
${reasonField('recover-reason')}
<div class="actions">${model.preview
    ? html`<button type="submit">Recover failed deliveries</button><button type="submit" class="secondary" name="${RECOVERY_PREVIEW_ONLY_FIELD}" value="1">Preview count</button>`
    : html`<button type="submit" name="${RECOVERY_PREVIEW_ONLY_FIELD}" value="1">Preview count</button>`}</div>
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
export function recoveryQueuedView(context: PanelContext, endpoint: WebhookEndpointView, result: WebhookRecoveryResult, resume: RecoveryFormModel | null): PanelView {
  const events = result.queued === 1 ? '1 event' : `${result.queued.toLocaleString('en')} events`;
  return {
    nav: 'webhooks',
    title: 'Recovery queued',
    body: html`<p class="breadcrumb"><a href="${panelPath('webhooks')}">Settings · Webhooks</a> · <a href="${panelPath('webhooks', endpoint.id)}">Endpoint</a></p>
<h1>Recovery queued</h1>
<p class="notice" role="status" id="recovery-result" data-queued="${String(result.queued)}"><strong>${events} queued</strong> to be sent again to <code>${endpoint.url}</code>, each once, from ${timeHtml(result.since)} on.</p>
${result.queued === 0 ? html`<p>Nothing was missing: every event since then was delivered or is already waiting to be sent.</p>` : html`<p>They are sent in the background, oldest first; their attempts appear in the endpoint's attempt list.</p>`}
${resume
  ? html`<div class="warning"><p>One recovery queues at most ${result.limit.toLocaleString('en')} events. More may be waiting: recover the rest from where this one stopped (nothing is sent twice).</p>
${recoveryForm(context, endpoint, resume)}</div>`
  : html``}
<p><a href="${panelPath('webhooks', endpoint.id)}">Back to the endpoint</a></p>`,
  };
}
