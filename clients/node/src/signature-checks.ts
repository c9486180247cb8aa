import { timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';

/** The steps both signature formats share (service-v1 in webhooks.ts, Standard Webhooks in standard-webhooks.ts). */

/** Largest accepted tolerance, in seconds (spec §6.4). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Headers as Node's http gives them, a fetch `Headers`, or a plain object (any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/** The tolerance to use: more than 0 and at most 300 s; a larger one is refused, not silently lowered. */
export function checkedTolerance(seconds: number | undefined): number {
  const tolerance = seconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance <= 0 || tolerance > WEBHOOK_TOLERANCE_SECONDS) {
    throw new RangeError(`toleranceSeconds must be more than 0 and at most ${WEBHOOK_TOLERANCE_SECONDS}`);
  }
  return tolerance;
}

/** Refuses a missing or malformed Unix-seconds header, or one further than the tolerance from `nowMs`. */
export function checkTimestamp(timestamp: string | undefined, headerName: string, nowMs: number | undefined, tolerance: number): asserts timestamp is string {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError(`missing or malformed ${headerName}`);
  const now = Math.floor((nowMs ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError('timestamp outside the tolerance window');
}

/** Throws unless one received signature equals one expected; every pair is compared (no early exit) in constant time. */
export function requireMatch(expected: readonly string[], received: readonly string[]): void {
  const candidates = received.map((entry) => Buffer.from(entry, 'utf8'));
  let matched = false;
  for (const signature of expected) {
    const wanted = Buffer.from(signature, 'utf8');
    for (const candidate of candidates) {
      if (candidate.length === wanted.length && timingSafeEqual(candidate, wanted)) matched = true;
    }
  }
  if (!matched) throw new WebhookVerificationError('signature does not match');
}
