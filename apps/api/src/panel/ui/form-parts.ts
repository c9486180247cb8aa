import { html, type Html } from '../../common/html';

export interface FieldProblem {
  field: string;
  message: string;
}

/** Summary of a form's problems, announced (role=alert), each linked to its field. */
export function problemSummary(problems: FieldProblem[]): Html {
  if (problems.length === 0) return html``;
  return html`<div class="errors" role="alert"><p>Please correct the following:</p><ul>${problems.map(
    (p) => html`<li><a href="#${p.field}">${p.message}</a></li>`,
  )}</ul></div>`;
}

export function fieldError(problems: FieldProblem[], field: string): Html {
  const messages = problems.filter((p) => p.field === field).map((p) => p.message);
  return messages.length > 0 ? html`<p class="field-error" id="${field}-error">${messages.join(' ')}</p>` : html``;
}

/** aria attributes tying a field to its hint and error. */
export function describedBy(problems: FieldProblem[], field: string, hintId?: string): Html {
  const invalid = problems.some((p) => p.field === field);
  const ids = [hintId, invalid ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : html``}${invalid ? html` aria-invalid="true"` : html``}`;
}

/** A group of checkboxes sharing one name, inside a fieldset with a legend. */
export function checkboxGroup(options: { name: string; legend: string; values: readonly string[]; checked: string[]; problems: FieldProblem[]; hint?: string }): Html {
  const invalid = options.problems.some((p) => p.field === options.name);
  const describedByIds = [options.hint ? `${options.name}-hint` : null, invalid ? `${options.name}-error` : null].filter(Boolean).join(' ');
  return html`<fieldset id="${options.name}"${describedByIds ? html` aria-describedby="${describedByIds}"` : html``}>
<legend>${options.legend}</legend>
${options.hint ? html`<p class="hint" id="${options.name}-hint">${options.hint}</p>` : html``}
${fieldError(options.problems, options.name)}
<div class="checkbox-grid">${options.values.map((value, index) => {
    const id = `${options.name}-${index}`;
    return html`<label for="${id}"><input type="checkbox" id="${id}" name="${options.name}" value="${value}"${options.checked.includes(value) ? html` checked` : html``}> <code>${value}</code></label>`;
  })}</div>
</fieldset>`;
}

/** A one-time secret in a read-only field, with a copy button that the copy script reveals. */
export function secretField(id: string, label: string, value: string): Html {
  return html`<label for="${id}">${label}</label>
<div class="secret-row"><input type="text" id="${id}" value="${value}" readonly spellcheck="false" autocomplete="off" aria-describedby="${id}-status">
<button type="button" class="secondary" data-copy="${id}" data-status="${id}-status" hidden>Copy</button></div>
<p class="hint" id="${id}-status" role="status" aria-live="polite"></p>`;
}

/** Longest reason the audit trail keeps (MAX_REASON_LENGTH of the audit context). */
export const REASON_MAX_LENGTH = 500;

/**
 * The optional "Reason for change" of a form that changes a record: posted as `reason`, the audit
 * context (audit-events/audit-context.ts) records it with the change, like X-Change-Reason.
 */
export function reasonField(id = 'reason'): Html {
  return html`<div class="reason"><label for="${id}">Reason for change <span class="hint">(optional)</span></label>
<input type="text" id="${id}" name="reason" maxlength="${String(REASON_MAX_LENGTH)}" autocomplete="off" aria-describedby="${id}-hint">
<p class="hint" id="${id}-hint">Kept with the change in the audit log, e.g. a deviation or change-request number.</p></div>`;
}

/** Form values: a string, or every value of a repeated field (checkboxes). */
export const formText = (value: unknown): string => (typeof value === 'string' ? value : '');
export const formList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/;

/**
 * `2026-11-26T06:00:00.000Z` → `2026-11-26 06:00` (UTC, as the panel writes times), with the
 * seconds and milliseconds only when they are not zero; other text is kept as typed.
 */
export function utcMinute(value: string): string {
  if (!ISO_TIME.test(value)) return value;
  const text = new Date(value).toISOString().slice(0, 23).replace('T', ' ');
  return text.endsWith(':00.000') ? text.slice(0, 16) : text.endsWith('.000') ? text.slice(0, 19) : text;
}

/** A time field in UTC text (`2026-11-26 06:00`), not `datetime-local`, which browsers show in the viewer's own time zone. */
export function utcTimeInput(field: { id: string; value: string; describedBy: Html; required?: boolean }): Html {
  return html`<div class="time-row"><input type="text" id="${field.id}" name="${field.id}" value="${utcMinute(field.value)}" placeholder="YYYY-MM-DD HH:MM" autocomplete="off" spellcheck="false"${field.required ? html` required` : html``}${field.describedBy}><span class="zone" aria-hidden="true">UTC</span></div>`;
}

/** The From/Until pair of a filter form, read as UTC; both described by the form's `time-hint`. */
export function timeRangeFields(input: { from: string; to: string }, problems: FieldProblem[]): Html {
  return html`<div><label for="from">From (UTC)</label>
${utcTimeInput({ id: 'from', value: input.from, describedBy: describedBy(problems, 'from', 'time-hint') })}
${fieldError(problems, 'from')}</div>
<div><label for="to">Until (UTC, not included)</label>
${utcTimeInput({ id: 'to', value: input.to, describedBy: describedBy(problems, 'to', 'time-hint') })}
${fieldError(problems, 'to')}</div>`;
}
