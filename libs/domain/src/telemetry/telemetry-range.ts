import { DomainError, invalidField } from '../errors';

export const DEFAULT_RANGE_MS = 24 * 3_600_000;
const DAY_MS = 86_400_000;

export class RangeTooLargeError extends DomainError {
  constructor(maxDays: number) {
    super('range_too_large', 'Range too large', `The telemetry range [from, to) may span at most ${maxDays} days.`, [
      { field: 'to', code: 'range_too_large', message: `to - from must not exceed ${maxDays} days` },
    ]);
  }
}

export interface TimeRange {
  from: Date;
  to: Date;
}

/**
 * [from, to): both given, or `to` defaulting to now, or `from` to 24 hours before `to`.
 * An empty or inverted range is a validation error; one longer than the configured maximum is
 * `range_too_large`.
 */
export function resolveRange(query: { from?: string; to?: string }, now: Date, maxDays: number): TimeRange {
  const to = query.to ? new Date(query.to) : now;
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_RANGE_MS);
  if (from.getTime() >= to.getTime()) throw invalidField('to', 'to must be later than from', 'not_after_from');
  if (to.getTime() - from.getTime() > maxDays * DAY_MS) throw new RangeTooLargeError(maxDays);
  return { from, to };
}
