import type { AuditEventFilters } from '@app/database';
import { parseTypedTime } from '@app/vocabulary';
import type { FieldProblem } from '../ui/form-parts';

/** What the filter form sent, as typed (echoed back into the form). */
export interface AuditLogFilterInput {
  resource_type: string;
  resource_id: string;
  actor: string;
  action: string;
  from: string;
  to: string;
}

export interface ParsedAuditLogFilter {
  input: AuditLogFilterInput;
  filters: AuditEventFilters;
  problems: FieldProblem[];
}

const FIELDS = ['resource_type', 'resource_id', 'actor', 'action', 'from', 'to'] as const;
const TIME_HINT = 'Enter a date and time in UTC like 2026-11-26 08:00.';
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/**
 * The audit log's filters from the query string, with the bounds of `GET /audit-events/`. Empty
 * fields mean "any"; anything else that is not acceptable is a problem named by its field (a 400
 * page with the form, never a 500).
 */
export function parseAuditLogFilter(query: Record<string, unknown>): ParsedAuditLogFilter {
  const input = Object.fromEntries(FIELDS.map((field) => [field, text(query[field])])) as unknown as AuditLogFilterInput;
  const problems: FieldProblem[] = [];
  for (const field of FIELDS) {
    if (query[field] !== undefined && typeof query[field] !== 'string') problems.push({ field, message: 'Give this filter once.' });
  }
  if (input.resource_type !== '' && !/^[a-z_]{1,64}$/.test(input.resource_type)) {
    problems.push({ field: 'resource_type', message: 'A resource type is written in lower case with underscores, like device or webhook_endpoint.' });
  }
  for (const field of ['resource_id', 'actor', 'action'] as const) {
    if (input[field].length > 200) problems.push({ field, message: 'This filter can have at most 200 characters.' });
  }
  const from = input.from === '' ? null : parseTypedTime(input.from, { dateOnly: true });
  if (input.from !== '' && from === null) problems.push({ field: 'from', message: `The start is not a date and time. ${TIME_HINT}` });
  const to = input.to === '' ? null : parseTypedTime(input.to, { dateOnly: true });
  if (input.to !== '' && to === null) problems.push({ field: 'to', message: `The end is not a date and time. ${TIME_HINT}` });
  if (from && to && from.getTime() >= to.getTime()) problems.push({ field: 'to', message: 'The end must be later than the start.' });
  const seen = new Set<string>();
  const unique = problems.filter((p) => (seen.has(p.field) ? false : (seen.add(p.field), true)));
  const filters: AuditEventFilters = {
    resourceType: input.resource_type || undefined,
    resourceId: input.resource_id || undefined,
    actor: input.actor || undefined,
    action: input.action || undefined,
    from: from ?? undefined,
    until: to ?? undefined,
  };
  return { input, filters, problems: unique };
}
