import { parseTypedTime } from '@app/vocabulary';
import { EVENT_LOG_TYPES, type EventLogFilter, isEventOutcome } from '@app/webhooks';
import type { FieldProblem } from '../ui/form-parts';

/** What the filter form sent, as typed (echoed back into the form). */
export interface EventLogFilterInput {
  type: string;
  outcome: string;
  from: string;
  to: string;
  endpoint: string;
}

export interface ParsedEventLogFilter {
  input: EventLogFilterInput;
  filter: EventLogFilter;
  problems: FieldProblem[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

const TIME_HINT = 'Enter a date and time in UTC like 2026-11-26 08:00.';

/**
 * The event log's filters from the query string; `endpointIds` are the company's endpoints. Empty fields mean "any"; anything else that is
 * not a known value is a problem named by its field (a 400 page with the form, never a 500).
 */
export function parseEventLogFilter(query: Record<string, unknown>, endpointIds: readonly string[]): ParsedEventLogFilter {
  const input: EventLogFilterInput = { type: text(query.type), outcome: text(query.outcome), from: text(query.from), to: text(query.to), endpoint: text(query.endpoint) };
  const problems: FieldProblem[] = [];
  for (const field of ['type', 'outcome', 'from', 'to', 'endpoint'] as const) {
    if (query[field] !== undefined && typeof query[field] !== 'string') problems.push({ field, message: 'Give this filter once.' });
  }
  const type = input.type === '' ? null : input.type;
  if (type !== null && !EVENT_LOG_TYPES.includes(type)) problems.push({ field: 'type', message: 'Choose an event type from the list.' });
  const outcome = input.outcome === '' ? null : input.outcome;
  if (outcome !== null && !isEventOutcome(outcome)) problems.push({ field: 'outcome', message: 'Choose a delivery outcome from the list.' });
  const from = input.from === '' ? null : parseTypedTime(input.from, { dateOnly: true });
  if (input.from !== '' && from === null) problems.push({ field: 'from', message: `The start is not a date and time. ${TIME_HINT}` });
  const to = input.to === '' ? null : parseTypedTime(input.to, { dateOnly: true });
  if (input.to !== '' && to === null) problems.push({ field: 'to', message: `The end is not a date and time. ${TIME_HINT}` });
  if (from && to && from.getTime() >= to.getTime()) problems.push({ field: 'to', message: 'The end must be later than the start.' });
  // One of the company's endpoints (the select lists them); an id of another company's is not.
  const endpoint = input.endpoint === '' ? null : (endpointIds.find((id) => id === input.endpoint.toLowerCase()) ?? null);
  if (input.endpoint !== '' && endpoint === null) problems.push({ field: 'endpoint', message: 'Choose an endpoint from the list.' });
  const filter: EventLogFilter = {
    type: problems.some((p) => p.field === 'type') ? null : type,
    outcome: outcome !== null && isEventOutcome(outcome) ? outcome : null,
    from,
    to,
    endpoint,
  };
  return { input, filter, problems: dedupe(problems) };
}

function dedupe(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => (seen.has(p.field) ? false : (seen.add(p.field), true)));
}
