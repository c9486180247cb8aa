import { EVENT_TYPES } from '@app/events';
import {
  ATTEMPTS_KEPT_PER_ENDPOINT,
  SECRET_ROTATION_WINDOW_HOURS,
  SIGNATURE_FORMATS,
  type CreatedWebhookEndpoint,
  type HealthTotals,
  type SignatureFormat,
  type WebhookAttemptView,
  type WebhookEndpointView,
} from '@app/webhooks';
import { html, type Html } from '../../common/html';
import { panelPath } from '../panel-paths';
import { mayManageWebhooks } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import { checkboxGroup, describedBy, fieldError, type FieldProblem, problemSummary, reasonField, secretField } from '../ui/form-parts';
import { csrfField, type PanelView, postButton, timeHtml } from '../ui/layout';
import { submissionField } from '../ui/form-submission';
import { successRateHtml } from './webhook-health.views';
import { attemptOrigin, attemptResultHtml } from './attempt-labels';
import { type RecoveryFormModel, recoverySection } from './webhook-recovery.views';

export const DESCRIPTION_MAX_LENGTH = 500;
const WEBHOOKS = panelPath('webhooks');
const breadcrumb = html`<p class="breadcrumb"><a href="${WEBHOOKS}">Settings · Webhooks</a></p>`;

function statusHtml(endpoint: WebhookEndpointView): Html {
  if (endpoint.status === 'enabled') return html`<span class="status ok">Enabled</span>`;
  return html`<span class="status bad">Disabled</span> since ${timeHtml(endpoint.disabled_at, 'unknown')}${endpoint.disabled_reason ? html`: ${endpoint.disabled_reason}` : html``}`;
}

/**
 * Said to the people who read these pages but do not manage them (operators, viewers): issue 17,
 * "administrators and managers manage; others read".
 */
export const READ_ONLY_NOTE = html`<p class="hint" id="read-only-note">You can view these webhook settings. Company administrators and managers manage them: add endpoints, send test events and resends, re-enable, recover and rotate secrets.</p>`;

const eventList = (events: string[]): Html => html`<ul>${events.map((e) => html`<li><code>${e}</code></li>`)}</ul>`;

export function endpointListView(context: PanelContext, endpoints: WebhookEndpointView[], successRates = new Map<string, HealthTotals>()): PanelView {
  const manage = mayManageWebhooks(context.user.role);
  const rows = endpoints.map(
    (e) => html`<tr>
<td data-label="Address"><a href="${panelPath('webhooks', e.id)}"><code>${e.url}</code></a>${e.description ? html`<br>${e.description}` : html``}</td>
<td data-label="Events">${eventList(e.events)}</td>
<td data-label="Status">${statusHtml(e)}</td>
<td data-label="Failures in a row">${e.consecutive_failures}</td>
<td data-label="Last 24 hours">${successRateHtml(successRates.get(e.id))}</td>
<td data-label="Created">${timeHtml(e.created_at)}</td>
</tr>`,
  );
  return {
    nav: 'webhooks',
    title: 'Settings · Webhooks',
    body: html`<h1>Settings · Webhooks</h1>
<p>Webhook endpoints receive your company's events as signed HTTPS POST requests. Each endpoint receives only the event types it subscribes to. After 20 failed delivery attempts in a row an endpoint is disabled automatically; ${manage ? 'you re-enable it here' : 'a company administrator or manager re-enables it here'}.</p>
${manage ? html`` : READ_ONLY_NOTE}
<p>${manage ? html`<a class="button" href="${panelPath('webhooks', 'new')}">Add an endpoint</a> ` : html``}<a href="${panelPath('webhook-events')}">Webhook event log</a></p>
${endpoints.length === 0
  ? html`<p class="empty">No webhook endpoints yet.</p>`
  : html`<div class="table-wrap"><table class="responsive"><caption>Endpoints (${endpoints.length})</caption>
<thead><tr><th scope="col">Address</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Failures in a row</th><th scope="col">Last 24 hours</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}`,
  };
}

export interface EndpointFormModel {
  /** The form's submission id (form-submission.ts). */
  submission: string;
  url: string;
  description: string;
  events: string[];
  /** What the form sent (checked again by the service); `service-v1` on a new form. */
  signatureFormat: string;
  problems: FieldProblem[];
}

const FORMAT_LABELS: Record<SignatureFormat, Html> = {
  'service-v1': html`Service signature (default): <code>X-Service-Signature</code>, as in the API specification`,
  'standard-webhooks': html`Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> as well, for receivers that verify with a Standard Webhooks library`,
};

export const formatName = (format: SignatureFormat): string => (format === 'standard-webhooks' ? 'Standard Webhooks' : 'Service signature (X-Service-Signature)');

/** The signature format radio group, on the add form and on the endpoint page. */
function signatureFormatFieldset(checked: string, problems: FieldProblem[]): Html {
  const invalid = problems.some((p) => p.field === 'signature_format');
  return html`<fieldset id="signature_format" aria-describedby="signature_format-hint${invalid ? ' signature_format-error' : ''}">
<legend>Signature format</legend>
<p class="hint" id="signature_format-hint">Every request carries the <code>X-Service-*</code> headers. With Standard Webhooks it also carries the Standard Webhooks headers, signed with the same secret, so a receiver can switch at its own pace.</p>
${fieldError(problems, 'signature_format')}
${SIGNATURE_FORMATS.map((format, index) => {
    const id = `signature_format-${index}`;
    return html`<label for="${id}"><input type="radio" id="${id}" name="signature_format" value="${format}"${checked === format ? html` checked` : html``}> ${FORMAT_LABELS[format]}</label>`;
  })}
</fieldset>`;
}

export function endpointFormView(context: PanelContext, model: EndpointFormModel): PanelView {
  return {
    nav: 'webhooks',
    status: model.problems.length > 0 ? 400 : 200,
    title: model.problems.length > 0 ? 'Error: add a webhook endpoint' : 'Add a webhook endpoint',
    body: html`${breadcrumb}
<h1>Add a webhook endpoint</h1>
${problemSummary(model.problems)}
<form method="post" action="${WEBHOOKS}" novalidate>
${csrfField(context)}${submissionField(model.submission)}
<label for="url">Address (URL)</label>
<input type="url" id="url" name="url" value="${model.url}" required maxlength="2048" placeholder="https://" spellcheck="false" autocomplete="url"${describedBy(model.problems, 'url', 'url-hint')}>
<p class="hint" id="url-hint">Must start with <code>https://</code>; plain <code>http://</code> is refused.</p>
${fieldError(model.problems, 'url')}
${checkboxGroup({ name: 'events', legend: 'Events to receive', values: EVENT_TYPES, checked: model.events, problems: model.problems })}
<label for="description">Description (optional)</label>
<input type="text" id="description" name="description" value="${model.description}" maxlength="${DESCRIPTION_MAX_LENGTH}"${describedBy(model.problems, 'description')}>
${fieldError(model.problems, 'description')}
${signatureFormatFieldset(model.signatureFormat, model.problems)}
${reasonField()}
<div class="actions"><button type="submit">Add endpoint</button><a href="${WEBHOOKS}">Cancel</a></div>
</form>`,
  };
}

const SIGNATURE_HELP = html`<p>Verify each request: compute HMAC-SHA256 with this secret over <code>{X-Service-Timestamp}.{raw body}</code> and compare it, in constant time, with the hexadecimal value after <code>v1=</code> in <code>X-Service-Signature</code>. Refuse timestamps more than 5 minutes from your clock.</p>`;

const STANDARD_WEBHOOKS_HELP = html`<p>Standard Webhooks: pass this secret as it is (with its <code>whsec_</code> prefix) to your Standard Webhooks library, for example <code>new Webhook(secret).verify(rawBody, headers)</code>. It checks <code>webhook-signature</code> (<code>v1,</code> + base64 HMAC-SHA256 of <code>{webhook-id}.{webhook-timestamp}.{raw body}</code>) and the 5-minute window. The same secret also verifies the <code>X-Service-Signature</code> as above.</p>`;

const signatureHelp = (format: SignatureFormat): Html => (format === 'standard-webhooks' ? html`${STANDARD_WEBHOOKS_HELP}${SIGNATURE_HELP}` : SIGNATURE_HELP);

const SECRET_WARNING = html`<p><strong>Copy the signing secret now: it is shown only this once.</strong> Store it in your receiver's secret store. If it is lost, rotate the secret to get a new one.</p>`;

export function endpointCreatedView(created: CreatedWebhookEndpoint): PanelView {
  return {
    nav: 'webhooks',
    secret: true,
    title: 'Endpoint added',
    body: html`${breadcrumb}
<h1>Endpoint added</h1>
<div class="warning" role="note">${SECRET_WARNING}</div>
<div class="card">
<dl class="summary"><dt>Address</dt><dd><code>${created.url}</code></dd><dt>Events</dt><dd>${created.events.join(', ')}</dd>${created.description ? html`<dt>Description</dt><dd>${created.description}</dd>` : html``}<dt>Signature format</dt><dd>${formatName(created.signature_format)}</dd></dl>
${secretField('signing-secret', 'Signing secret', created.signing_secret)}
${signatureHelp(created.signature_format)}
</div>
<p><a href="${panelPath('webhooks', created.id)}">I have stored the secret: go to the endpoint</a></p>`,
  };
}

export function rotateConfirmView(context: PanelContext, endpoint: WebhookEndpointView): PanelView {
  return {
    nav: 'webhooks',
    title: 'Rotate the signing secret',
    body: html`${breadcrumb}
<h1>Rotate the signing secret</h1>
<p>Endpoint <code>${endpoint.url}</code></p>
<div class="warning" id="rotate-effect"><p>A new secret is generated and is <strong>effective immediately</strong>: every attempt from now on, retries of earlier events included, is signed with it, and the old secret stops being used for <code>X-Service-Signature</code>.</p>
<p>A delivery signed with the old secret shortly before can still arrive and fail verification: during the transition let your receiver accept both the old and the new secret, then remove the old one.</p>
<p>With the Standard Webhooks format, <code>webhook-signature</code> carries a signature with each secret for ${SECRET_ROTATION_WINDOW_HOURS} hours, so a receiver holding either one keeps verifying.</p></div>
<div class="actions">${postButton(context, panelPath('webhooks', endpoint.id, 'rotate-secret'), 'Rotate secret now', { className: 'danger', describedBy: 'rotate-effect', reason: reasonField() })}<a href="${panelPath('webhooks', endpoint.id)}">Cancel</a></div>`,
  };
}

export function secretRotatedView(endpoint: WebhookEndpointView, secret: string): PanelView {
  return {
    nav: 'webhooks',
    secret: true,
    title: 'New signing secret',
    body: html`${breadcrumb}
<h1>New signing secret</h1>
<div class="warning" role="note">${SECRET_WARNING}
<p>The new secret is in force now. Until your receiver has it, accept both the old and the new secret; a request signed with the old one shortly before the rotation can still arrive.</p>
${endpoint.signature_format === 'standard-webhooks' ? html`<p>Standard Webhooks: until ${timeHtml(endpoint.previous_secret_expires_at)}, <code>webhook-signature</code> carries signatures with both the old and the new secret.</p>` : html``}</div>
<div class="card">
<dl class="summary"><dt>Address</dt><dd><code>${endpoint.url}</code></dd><dt>Rotated</dt><dd>${timeHtml(endpoint.secret_rotated_at)}</dd></dl>
${secretField('signing-secret', 'New signing secret', secret)}
</div>
<p><a href="${panelPath('webhooks', endpoint.id)}">I have stored the secret: back to the endpoint</a></p>`,
  };
}


/** Attempts shown on one page of an endpoint's page (the attempt log keeps 100): a phone scrolls through 20 cards, not 100. */
export const ATTEMPTS_PER_PAGE = 20;
/** The endpoint page's query parameter naming the page of attempts (1 = the newest). */
export const ATTEMPTS_PAGE_PARAM = 'attempts_page';

/** The page of attempts asked for: a whole number from 1 to the last page; anything else is the first. */
export function attemptsPage(value: unknown, attempts: number): number {
  const last = Math.max(1, Math.ceil(attempts / ATTEMPTS_PER_PAGE));
  const page = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : 1;
  return Math.min(Math.max(page, 1), last);
}

function attemptsPager(endpoint: WebhookEndpointView, total: number, page: number): Html {
  const last = Math.ceil(total / ATTEMPTS_PER_PAGE);
  if (last <= 1) return html``;
  const to = (n: number): string => `${panelPath('webhooks', endpoint.id)}?${ATTEMPTS_PAGE_PARAM}=${n}#attempts`;
  return html`<nav class="pager" aria-label="Pages of delivery attempts"><ul>
${page > 1 ? html`<li><a href="${to(page - 1)}" rel="prev">← Newer attempts</a></li>` : html``}
<li>Page ${page} of ${last}</li>
${page < last ? html`<li><a href="${to(page + 1)}" rel="next">Older attempts →</a></li>` : html``}
</ul></nav>`;
}

function attemptsTable(context: PanelContext, endpoint: WebhookEndpointView, all: WebhookAttemptView[], page: number): Html {
  if (all.length === 0) return html`<p class="empty">No delivery attempts yet.</p>`;
  const first = (page - 1) * ATTEMPTS_PER_PAGE;
  const attempts = all.slice(first, first + ATTEMPTS_PER_PAGE);
  const enabled = endpoint.status === 'enabled';
  // Readers get no Action column: there is nothing in it for them.
  const manage = mayManageWebhooks(context.user.role);
  const rows = attempts.map(
    (a) => html`<tr>
<td data-label="Time">${timeHtml(a.attempted_at)}</td>
<td data-label="Event type" class="nowrap"><code>${a.event_type}</code></td>
<td data-label="Event ID"><code>${a.event_id}</code></td>
<td data-label="Delivery ID"><code>${a.delivery_id}</code></td>
<td data-label="Origin">${attemptOrigin(a)}</td>
<td data-label="Result">${attemptResultHtml(a)}</td>
<td data-label="Status code">${a.status_code === null ? html`<span class="empty">none</span>` : String(a.status_code)}</td>
<td data-label="Error">${a.error ?? ''}</td>
<td data-label="Duration">${a.duration_ms} ms</td>
${manage ? html`<td data-label="Action">${enabled ? postButton(context, panelPath('webhooks', endpoint.id, 'resend'), 'Resend', { className: 'secondary', fields: { event_id: a.event_id } }) : html``}</td>` : html``}
</tr>`,
  );
  return html`<div class="table-wrap"><table class="responsive" id="attempts" data-page="${page}"><caption>Delivery attempts ${first + 1}–${first + attempts.length} of the last ${all.length}, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Event type</th><th scope="col">Event ID</th><th scope="col">Delivery ID</th><th scope="col">Origin</th><th scope="col">Result</th><th scope="col">Status code</th><th scope="col">Error</th><th scope="col">Duration</th>${manage ? html`<th scope="col">Action</th>` : html``}</tr></thead>
<tbody>${rows}</tbody></table></div>
${attemptsPager(endpoint, all.length, page)}`;
}

/** The endpoint page's actions: test event, recovery and secret rotation (administrators and managers only). */
function managementSections(context: PanelContext, endpoint: WebhookEndpointView, recovery: RecoveryFormModel | undefined): Html {
  return html`<h2>Test</h2>
${endpoint.status === 'enabled'
  ? html`<p id="test-help">Sends a <code>webhook.test</code> event to this endpoint only, signed like every other event.</p><div class="actions">${postButton(context, panelPath('webhooks', endpoint.id, 'test'), 'Send a test event', { describedBy: 'test-help' })}</div>`
  : html`<p>Re-enable the endpoint to send a test event.</p>`}
${recovery ? recoverySection(context, endpoint, recovery) : html``}
<h2>Signing secret</h2>
<p>The secret is never shown again after it was created. Rotate it to get a new one, for example when it may have leaked.</p>
<p><a href="${panelPath('webhooks', endpoint.id, 'rotate-secret')}">Rotate the signing secret</a></p>
${signatureFormatSection(context, endpoint)}`;
}

/** Changing the signature format keeps the secret: it serves both formats. */
function signatureFormatSection(context: PanelContext, endpoint: WebhookEndpointView): Html {
  return html`<h2 id="signature-format-heading">Signature format</h2>
<form method="post" action="${panelPath('webhooks', endpoint.id, 'signature-format')}" novalidate aria-labelledby="signature-format-heading">
${csrfField(context)}
${signatureFormatFieldset(endpoint.signature_format, [])}
<p class="hint">The signing secret stays the same. A secret issued before Standard Webhooks was offered (it contains <code>-</code> or <code>_</code>) is read by Standard Webhooks libraries only after one rotation.</p>
${reasonField('signature-format-reason')}
<div class="actions"><button type="submit" class="secondary">Save signature format</button></div>
</form>`;
}

export function endpointDetailView(
  context: PanelContext,
  endpoint: WebhookEndpointView,
  attempts: WebhookAttemptView[],
  health: Html = html``,
  recovery?: RecoveryFormModel,
  page = 1,
): PanelView {
  const enabled = endpoint.status === 'enabled';
  const manage = mayManageWebhooks(context.user.role);
  const here = panelPath('webhooks', endpoint.id);
  return {
    nav: 'webhooks',
    title: `Endpoint ${endpoint.url}`,
    body: html`${breadcrumb}
<h1>Endpoint <code>${endpoint.url}</code></h1>
${manage ? html`` : READ_ONLY_NOTE}
${health}
${enabled
  ? html``
  : manage
    ? html`<div class="warning"><p><strong>This endpoint is disabled</strong> and receives no events. Fix the receiver, then re-enable it; you are then offered to send again, in one step, the events it missed.</p>
<div class="actions">${postButton(context, panelPath('webhooks', endpoint.id, 'enable'), 'Re-enable endpoint', { reason: reasonField('enable-reason') })}</div></div>`
    : html`<div class="warning"><p><strong>This endpoint is disabled</strong> and receives no events until a company administrator or manager turns it back on.</p></div>`}
<div class="card"><dl class="summary">
<dt>Status</dt><dd>${statusHtml(endpoint)}</dd>
<dt>Events</dt><dd>${endpoint.events.join(', ')}</dd>
<dt>Description</dt><dd>${endpoint.description ?? html`<span class="empty">none</span>`}</dd>
<dt>Failures in a row</dt><dd>${endpoint.consecutive_failures} (the endpoint is disabled after 20)</dd>
<dt>Secret last rotated</dt><dd>${timeHtml(endpoint.secret_rotated_at)}</dd>
<dt>Signature format</dt><dd>${formatName(endpoint.signature_format)}${endpoint.signature_format === 'standard-webhooks' && endpoint.previous_secret_expires_at ? html` (the previous secret also signs until ${timeHtml(endpoint.previous_secret_expires_at)})` : html``}</dd>
<dt>Created</dt><dd>${timeHtml(endpoint.created_at)}</dd>
</dl></div>
${manage ? managementSections(context, endpoint, recovery) : html``}
<h2>Delivery attempts</h2>
<p>The last ${ATTEMPTS_KEPT_PER_ENDPOINT} attempts with the response status code, error and duration. <a href="${here}">Reload</a> to see new ones.</p>
${attemptsTable(context, endpoint, attempts, page)}`,
  };
}
