import type { AuditEventRow } from '@app/database';
import { html, type Html } from '../../common/html';
import type { AuditLogFilterInput } from './audit-log-filters';
import { panelPath } from '../panel-paths';
import { describedBy, fieldError, type FieldProblem, problemSummary, timeRangeFields } from '../ui/form-parts';
import { type PanelView, timeHtml } from '../ui/layout';

export const AUDIT_LOG = panelPath('audit-log');
export const auditRecordPath = (id: string): string => panelPath('audit-log', id);

const ACTORS: Record<AuditEventRow['actor_type'], string> = {
  credential: 'API credential',
  panel_user: 'Panel user',
  cli: 'Platform operator',
  system: 'The service',
};

export interface AuditLogModel {
  input: AuditLogFilterInput;
  problems: FieldProblem[];
  /** Null when the filters could not be used (nothing was listed). */
  records: AuditEventRow[] | null;
  older: string | null;
  /** A page other than the first. */
  paged: boolean;
}

const actorHtml = (row: AuditEventRow): Html =>
  html`${ACTORS[row.actor_type]}${row.actor_id ? html` <code>${row.actor_id}</code>` : html``}`;

function textField(model: AuditLogModel, field: keyof AuditLogFilterInput, label: string, hint?: string): Html {
  return html`<div><label for="${field}">${label}</label>
<input type="text" id="${field}" name="${field}" value="${model.input[field]}" maxlength="200" spellcheck="false" autocomplete="off"${describedBy(model.problems, field, hint)}>
${fieldError(model.problems, field)}</div>`;
}

function filterForm(model: AuditLogModel): Html {
  const { input, problems } = model;
  return html`<form method="get" action="${AUDIT_LOG}" class="filters" id="filters" aria-label="Filter the audit log">
<div class="filter-fields">
${textField(model, 'resource_type', 'Resource type', 'resource-hint')}
${textField(model, 'resource_id', 'Resource ID')}
${textField(model, 'actor', 'Actor ID')}
${textField(model, 'action', 'Action')}
${timeRangeFields(input, problems)}
</div>
<p class="hint" id="resource-hint">For example <code>device</code>, <code>shipment</code>, <code>webhook_endpoint</code>, <code>api_credential</code>, <code>user</code>. The action is exact, like <code>PATCH /devices/{device_id}/settings/</code>.</p>
<p class="hint" id="time-hint">Year-month-day hour:minute in UTC, not your local time (server time of the change).</p>
<div class="actions"><button type="submit">Apply filters</button><a href="${AUDIT_LOG}">Clear filters</a></div>
</form>`;
}

function pager(model: AuditLogModel): Html {
  if (!model.older && !model.paged) return html``;
  return html`<nav class="pager" aria-label="Pages of the audit log"><ul>
${model.paged ? html`<li><a href="${AUDIT_LOG}">Newest records</a></li>` : html``}
${model.older ? html`<li><a href="${model.older}" rel="next">Older records →</a></li>` : html``}
</ul></nav>`;
}

function recordsTable(records: AuditEventRow[]): Html {
  if (records.length === 0) return html`<p class="empty" id="records-empty">No audit records match these filters.</p>`;
  const rows = records.map(
    (r) => html`<tr>
<td data-label="Time (UTC)"><a href="${auditRecordPath(r.id)}">${timeHtml(r.occurred_at.toISOString())}</a></td>
<td data-label="Actor">${actorHtml(r)}</td>
<td data-label="Action"><code>${r.action}</code></td>
<td data-label="Resource"><code>${r.resource_type}</code> <code>${r.resource_id}</code></td>
<td data-label="Changed fields">${Object.keys(r.changes).sort().join(', ')}</td>
<td data-label="Reason">${r.reason ?? html`<span class="empty">none given</span>`}</td>
</tr>`,
  );
  return html`<div class="table-wrap"><table class="responsive" id="audit-records"><caption>Audit records, newest first</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Resource</th><th scope="col">Changed fields</th><th scope="col">Reason</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

export function auditLogView(model: AuditLogModel, status?: number): PanelView {
  const failed = model.problems.length > 0;
  return {
    nav: 'audit',
    status: status ?? (failed ? 400 : 200),
    title: failed ? 'Error: audit log' : 'Audit log',
    body: html`<h1>Audit log</h1>
<p>Every change made to your company's records — through the API, this panel, the platform's operators or the service itself — with who made it, from where, why, and each field's value before and after. Records are never changed or removed; secrets show only that they changed.</p>
${problemSummary(model.problems)}
${filterForm(model)}
${model.records === null ? html`` : html`${pager(model)}${recordsTable(model.records)}${pager(model)}`}`,
  };
}

const valueHtml = (value: unknown): Html => (value === null || value === undefined ? html`<span class="empty">empty</span>` : html`<code>${JSON.stringify(value)}</code>`);

function changesTable(row: AuditEventRow): Html {
  const fields = Object.keys(row.changes).sort();
  if (fields.length === 0) return html`<p class="empty">No field values were recorded.</p>`;
  const rows = fields.map((field) => {
    const change = row.changes[field];
    return 'changed' in change
      ? html`<tr><th scope="row"><code>${field}</code></th><td data-label="Before" colspan="2"><span class="status muted">Secret: changed</span> (its value is never recorded)</td></tr>`
      : html`<tr><th scope="row"><code>${field}</code></th><td data-label="Before">${valueHtml(change.old)}</td><td data-label="After">${valueHtml(change.new)}</td></tr>`;
  });
  return html`<div class="table-wrap"><table class="responsive" id="changes"><caption>Changed fields</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

export function auditRecordView(row: AuditEventRow): PanelView {
  return {
    nav: 'audit',
    title: `Audit record ${row.id}`,
    body: html`<p class="breadcrumb"><a href="${AUDIT_LOG}">Audit log</a></p>
<h1>Audit record</h1>
<div class="card"><dl class="summary" id="record">
<dt>Time (UTC)</dt><dd>${timeHtml(row.occurred_at.toISOString())}</dd>
<dt>Actor</dt><dd>${actorHtml(row)}</dd>
<dt>Client address</dt><dd>${row.client_address ?? html`<span class="empty">none</span>`}</dd>
<dt>Request ID</dt><dd>${row.request_id ? html`<code>${row.request_id}</code>` : html`<span class="empty">none</span>`}</dd>
<dt>Action</dt><dd><code>${row.action}</code></dd>
<dt>Operation</dt><dd>${row.operation}</dd>
<dt>Resource</dt><dd><code>${row.resource_type}</code> <code>${row.resource_id}</code></dd>
<dt>Reason for change</dt><dd>${row.reason ?? html`<span class="empty">none given</span>`}</dd>
<dt>Position in the chain</dt><dd>${row.seq} · hash <code>${row.hash}</code></dd>
</dl></div>
${changesTable(row)}`,
  };
}
