import { EVENT_LOG_TYPES, type WebhookBulkResendCount, type EventAttemptView, type EventEndpointView, type EventLogEntry, type EventOutcome, EVENT_OUTCOMES, type WebhookEventView } from '@app/webhooks';
import { html, type Html } from '../../common/html';
import { panelPath } from '../panel-paths';
import { mayManageWebhooks } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import type { EventLogFilterInput } from './event-log-filters';
import { describedBy, fieldError, type FieldProblem, problemSummary, timeRangeFields } from '../ui/form-parts';
import { attemptOrigin, attemptResultHtml, deliverySource, deliveryState } from './attempt-labels';
import { type PanelView, postButton, timeHtml } from '../ui/layout';

export const EVENT_LOG = panelPath('webhook-events');
export const eventPath = (eventId: string): string => panelPath('webhook-events', eventId);

const OUTCOMES: Record<EventOutcome, { label: string; className: string; help: string }> = {
  delivered: { label: 'Delivered', className: 'ok', help: 'every endpoint answered 2xx' },
  pending: { label: 'Pending', className: 'muted', help: 'queued, not attempted yet' },
  failing: { label: 'Failing', className: 'bad', help: 'an attempt failed; it is retried' },
  not_sent: { label: 'Not sent', className: 'bad', help: 'an endpoint was disabled when the event happened (recover it from the endpoint’s page once it is back)' },
  failed: { label: 'Failed', className: 'bad', help: 'an endpoint never answered 2xx and retries ended (or it was disabled)' },
};

const outcomeHtml = (outcome: EventOutcome): Html => html`<span class="status ${OUTCOMES[outcome].className}">${OUTCOMES[outcome].label}</span>`;

function option(value: string, label: string, selected: string): Html {
  return html`<option value="${value}"${value === selected ? html` selected` : html``}>${label}</option>`;
}

export interface EventLogModel {
  input: EventLogFilterInput;
  /** The event-id search box, as typed. */
  search: string;
  problems: FieldProblem[];
  /** Null when the filters could not be used (nothing was listed). */
  events: EventLogEntry[] | null;
  newer: string | null;
  older: string | null;
  /** A page other than the first. */
  paged: boolean;
  /** The page's search stopped at its budget, at this time (more may match beyond it). */
  searchedTo: string | null;
  /** …going towards newer events (the Newer link) rather than older ones. */
  searchedNewer: boolean;
  retentionDays: number;
  /** The company's endpoints, for the endpoint filter. */
  endpoints: ReadonlyArray<{ id: string; url: string; enabled: boolean }>;
  /** With one endpoint chosen, for administrators and managers: what a bulk resend would queue now. */
  bulk: WebhookBulkResendCount | null;
  status?: number;
}

function filterForm(model: EventLogModel): Html {
  const { input, problems } = model;
  return html`<form method="get" action="${EVENT_LOG}" class="filters" id="filters" aria-label="Filter events">
<div class="filter-fields">
<div><label for="type">Event type</label>
<select id="type" name="type"${describedBy(problems, 'type')}>${option('', 'Any type', input.type)}${EVENT_LOG_TYPES.map((t) => option(t, t, input.type))}</select>
${fieldError(problems, 'type')}</div>
<div><label for="outcome">Delivery outcome</label>
<select id="outcome" name="outcome"${describedBy(problems, 'outcome', 'outcome-hint')}>${option('', 'Any outcome', input.outcome)}${EVENT_OUTCOMES.map((o) => option(o, OUTCOMES[o].label, input.outcome))}</select>
${fieldError(problems, 'outcome')}</div>
<div><label for="endpoint">Endpoint</label>
<select id="endpoint" name="endpoint"${describedBy(problems, 'endpoint')}>${option('', 'Any endpoint', input.endpoint)}${model.endpoints.map((e) => option(e.id, e.url, input.endpoint.toLowerCase()))}</select>
${fieldError(problems, 'endpoint')}</div>
${timeRangeFields(input, problems)}
</div>
<p class="hint" id="time-hint">Year-month-day hour:minute in UTC, not your local time. An event is listed at its own time: when it was first queued, or, for one a recovery sent after an outage, when it happened.</p>
<p class="hint" id="outcome-hint">${EVENT_OUTCOMES.map((o, i) => html`${i > 0 ? '; ' : ''}<strong>${OUTCOMES[o].label}</strong>: ${OUTCOMES[o].help}`)}. An event sent to several endpoints shows the worst of them; with an endpoint chosen, its outcome there.</p>
<div class="actions"><button type="submit">Apply filters</button><a href="${EVENT_LOG}">Clear filters</a></div>
</form>`;
}

/** "Resend N events to this endpoint" under the filters (issue 31 item 4). */
function bulkResendForm(context: PanelContext, model: EventLogModel): Html {
  const endpoint = model.endpoints.find((e) => e.id === model.input.endpoint.toLowerCase());
  if (!model.bulk || !endpoint) return html``;
  if (!endpoint.enabled) {
    return html`<p class="card" id="bulk-resend">This endpoint is disabled: <a href="${panelPath('webhooks', endpoint.id)}">re-enable it</a> to send the listed events to it again.</p>`;
  }
  const { count, limit, more } = model.bulk;
  if (count === 0) {
    return html`<p class="card" id="bulk-resend" data-count="0">No event listed here can be sent again to <code>${endpoint.url}</code>: each is already waiting to be sent to it, or its content is no longer stored.</p>`;
  }
  const events = `${count} event${count === 1 ? '' : 's'}`;
  const fields = Object.fromEntries(Object.entries(model.input).filter(([, value]) => value !== ''));
  return html`<div class="card" id="bulk-resend" data-count="${String(count)}">
<p id="bulk-resend-help">Sends ${more ? html`the oldest ${String(limit)} of the events` : html`the ${events}`} listed by these filters to <code>${endpoint.url}</code> again, once each, oldest first${more ? html` (one resend sends at most ${String(limit)}; resend again for the rest)` : html``}. Events already waiting to be sent to it are left out. It counts as one resend against your company’s hourly limit.</p>
${postButton(context, panelPath('webhook-events', 'resend'), `Resend ${events} to this endpoint`, { className: 'secondary', fields, describedBy: 'bulk-resend-help' })}
</div>`;
}

function searchForm(model: EventLogModel): Html {
  return html`<form method="get" action="${EVENT_LOG}" class="card" role="search" aria-label="Event search">
<label for="event_id">Find an event by its ID</label>
<input type="text" id="event_id" name="event_id" value="${model.search}" maxlength="100" spellcheck="false" autocomplete="off" placeholder="e.g. 0193b7a2-…"${describedBy(model.problems, 'event_id', 'event_id-hint')}>
<p class="hint" id="event_id-hint">The event's <code>id</code>, as your receiver got it in the body.</p>
${fieldError(model.problems, 'event_id')}
<div class="actions"><button type="submit" class="secondary">Find event</button></div>
</form>`;
}

function pager(model: EventLogModel): Html {
  if (!model.newer && !model.older && !model.paged) return html``;
  return html`<nav class="pager" aria-label="Pages of events"><ul>
${model.newer ? html`<li><a href="${model.newer}" rel="prev">← Newer events</a></li>` : html``}
${model.paged ? html`<li><a href="${EVENT_LOG}">Newest events</a></li>` : html``}
${model.older ? html`<li><a href="${model.older}" rel="next">Older events →</a></li>` : html``}
</ul></nav>`;
}

/** A filtered page ends early when few events match: it says how far it looked and how to go on. */
function partialNote(model: EventLogModel): Html {
  if (!model.searchedTo) return html``;
  return html`<p class="notice" id="partial">This page looked at events ${model.searchedNewer ? 'up to' : 'back to'} ${timeHtml(model.searchedTo)} and found ${model.events?.length === 1 ? 'one match' : `${model.events?.length ?? 0} matches`} there. ${model.searchedNewer ? 'Newer' : 'Older'} events may match too: use “${model.searchedNewer ? 'Newer events' : 'Older events'}” to look further.</p>`;
}

function eventsTable(events: EventLogEntry[]): Html {
  if (events.length === 0) return html`<p class="empty" id="events-empty">No events match these filters.</p>`;
  const rows = events.map(
    (e) => html`<tr>
<td data-label="Time">${timeHtml(e.created_at)}</td>
<td data-label="Event type" class="nowrap"><code>${e.event_type}</code></td>
<td data-label="Event ID"><a href="${eventPath(e.event_id)}"><code>${e.event_id}</code></a></td>
<td data-label="Outcome">${outcomeHtml(e.outcome)}</td>
<td data-label="Endpoints">${String(e.endpoints)}</td>
</tr>`,
  );
  return html`<div class="table-wrap"><table class="responsive" id="events"><caption>Events, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Event type</th><th scope="col">Event ID</th><th scope="col">Outcome</th><th scope="col">Endpoints</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

export function eventLogView(context: PanelContext, model: EventLogModel): PanelView {
  const failed = model.problems.length > 0;
  return {
    nav: 'events',
    status: model.status ?? (failed ? 400 : 200),
    title: failed ? 'Error: webhook event log' : 'Webhook event log',
    body: html`<p class="breadcrumb"><a href="${panelPath('webhooks')}">Settings · Webhooks</a></p>
<h1>Webhook event log</h1>
<p>Your company's events of the last ${String(model.retentionDays)} days of the types your webhook endpoints subscribe to, newest first, each at the time it happened, with what became of its delivery (also those not sent while an endpoint was disabled). Open an event to see its payload and every attempt${mayManageWebhooks(context.user.role) ? ', and to send it again' : ''}.</p>
${problemSummary(model.problems)}
${searchForm(model)}
${filterForm(model)}
${bulkResendForm(context, model)}
${model.events === null ? html`` : html`${pager(model)}${partialNote(model)}${eventsTable(model.events)}${pager(model)}`}`,
  };
}

function prettyPayload(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

function attemptsTable(endpoint: EventEndpointView, attempts: EventAttemptView[]): Html {
  if (attempts.length === 0) return html`<p class="empty">No delivery attempts recorded for this endpoint.</p>`;
  const rows = attempts.map(
    (a) => html`<tr>
<td data-label="Time">${timeHtml(a.attempted_at)}</td>
<td data-label="Origin">${attemptOrigin(a)}</td>
<td data-label="Result">${attemptResultHtml(a)}</td>
<td data-label="Status code">${a.status_code === null ? html`<span class="empty">none</span>` : String(a.status_code)}</td>
<td data-label="Error">${a.error ?? ''}</td>
<td data-label="Duration">${String(a.duration_ms)} ms</td>
<td data-label="Delivery ID"><code>${a.delivery_id}</code></td>
</tr>`,
  );
  return html`<div class="table-wrap"><table class="responsive"><caption>Attempts to <code>${endpoint.url}</code>, oldest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Origin</th><th scope="col">Result</th><th scope="col">Status code</th><th scope="col">Error</th><th scope="col">Duration</th><th scope="col">Delivery ID</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** Each delivery of the event to the endpoint, oldest first, with what became of it and when. */
function deliveryStates(endpoint: EventEndpointView): Html {
  const items = endpoint.deliveries.map((delivery) => {
    const state = deliveryState(delivery);
    const source = deliverySource(delivery);
    return html`<li>${source ? html`${source}, queued ${timeHtml(delivery.created_at)}: ` : html``}<span class="status ${state.ok ? 'ok' : 'bad'}">${state.label}</span> ${timeHtml(state.at)}</li>`;
  });
  return html`<ul class="deliveries">${items}</ul>`;
}

function endpointSection(context: PanelContext, event: WebhookEventView, endpoint: EventEndpointView, index: number): Html {
  const manage = mayManageWebhooks(context.user.role);
  const resends = endpoint.deliveries.filter((d) => d.origin === 'resend').length;
  const action = !manage
    ? endpoint.enabled
      ? html``
      : html`<p>This endpoint is disabled; a company administrator or manager can turn it back on.</p>`
    : endpoint.enabled
      ? html`<div class="actions">${postButton(context, panelPath('webhook-events', event.event_id, 'resend'), 'Resend to this endpoint', { className: 'secondary', fields: { endpoint_id: endpoint.endpoint_id }, describedBy: `endpoint-${index}-title` })}</div>`
      : html`<p>This endpoint is disabled: <a href="${panelPath('webhooks', endpoint.endpoint_id)}">re-enable it</a> to send the event again.</p>`;
  return html`<section class="card" aria-labelledby="endpoint-${String(index)}-title">
<h3 id="endpoint-${String(index)}-title"><a href="${panelPath('webhooks', endpoint.endpoint_id)}"><code>${endpoint.url}</code></a></h3>
<dl class="summary"><dt>Outcome</dt><dd>${outcomeHtml(endpoint.outcome)}${endpoint.enabled ? html`` : html` <span class="status bad">Endpoint disabled</span>`}</dd>
<dt>Deliveries</dt><dd>${deliveryStates(endpoint)}</dd>
<dt>Sent by hand</dt><dd>${resends === 0 ? 'never' : `${resends} time${resends === 1 ? '' : 's'}`}</dd></dl>
${attemptsTable(endpoint, endpoint.attempts)}
${action}
</section>`;
}

export function eventDetailView(context: PanelContext, event: WebhookEventView): PanelView {
  return {
    nav: 'events',
    title: `Event ${event.event_id}`,
    body: html`<p class="breadcrumb"><a href="${EVENT_LOG}">Webhook event log</a></p>
<h1>Event <code>${event.event_id}</code></h1>
<div class="card"><dl class="summary">
<dt>Type</dt><dd><code>${event.event_type}</code></dd>
<dt>Time</dt><dd>${timeHtml(event.at)}</dd>
<dt>Outcome</dt><dd>${outcomeHtml(event.outcome)}</dd>
<dt>Endpoints</dt><dd>${String(event.endpoints.length)}</dd>
</dl></div>
<h2>Payload</h2>
${event.payload === null
  ? html`<p class="empty" id="payload">The payload is older than the retention period and is no longer stored.</p>`
  : html`<p class="hint">The request body as delivered, formatted for reading (the signature covers the exact bytes sent).</p><pre class="payload" id="payload" tabindex="0"><code>${prettyPayload(event.payload)}</code></pre>`}
<h2>Deliveries per endpoint</h2>
<p>The attempt log keeps each endpoint's last 100 attempts; older ones are no longer listed.</p>
${event.endpoints.map((endpoint, index) => endpointSection(context, event, endpoint, index))}`,
  };
}
