/** Spec §6.5 and §8: up to 6 retries after the first attempt. */
export const MAX_RETRIES = 6;
/** Spec §3: 20 consecutive failed attempts disable the endpoint. */
export const AUTO_DISABLE_AFTER_FAILURES = 20;
/** A receiver's Retry-After (on 429 and 503, where HTTP defines it) is honoured up to this bound (a larger value is capped, not ignored). */
export const MAX_RETRY_AFTER_SECONDS = 3600;

export type AttemptOutcome = 'succeeded' | 'retry' | 'failed';

/**
 * 2xx succeeds; 429 and 5xx are retried; a 3xx is a permanent failure (redirects are never
 * followed, so retrying cannot help: the address must be fixed); every other status fails
 * permanently.
 */
export function classifyStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'succeeded';
  if (status === 429 || (status >= 500 && status < 600)) return 'retry';
  return 'failed';
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return null; // IMF-fixdate only
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * Delay before retry number `retry` (1..6): exponential backoff from WEBHOOK_RETRY_SCHEDULE
 * (the six ceilings) with full jitter, uniform in [0, ceiling]; never sooner than a receiver's
 * Retry-After (capped at MAX_RETRY_AFTER_SECONDS).
 */
export function retryDelayMs(schedule: number[], retry: number, retryAfterSeconds: number | null, random: () => number = Math.random): number {
  const ceiling = schedule[Math.min(Math.max(retry, 1), schedule.length) - 1] * 1000;
  const jittered = Math.floor(random() * ceiling);
  const floor = retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000;
  return Math.max(jittered, floor);
}
