import { html, type Html } from '../../pages/html';

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

/** Form values: a string, or every value of a repeated field (checkboxes). */
export const formText = (value: unknown): string => (typeof value === 'string' ? value : '');
export const formList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);
