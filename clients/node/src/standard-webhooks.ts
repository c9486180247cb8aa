import { createHmac } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import { checkedTolerance, checkTimestamp, headerOf, requireMatch, type WebhookHeaders } from './signature-checks';
import { parseWebhookEvent, type WebhookEvent } from './webhooks';

/**
 * Standard Webhooks (standardwebhooks.com), for endpoints whose signature format is
 * `standard-webhooks`: their requests carry, beside the X-Service-* headers, `webhook-id` (the
 * event id), `webhook-timestamp` (Unix seconds) and `webhook-signature` — space-separated
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{raw body}">`, two of them during a rotation window.
 * The key is the bytes of the `whsec_` secret's base64, as the format's own libraries read it.
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export interface VerifyStandardWebhookOptions {
  /** Maximum age (and clock skew) of `webhook-timestamp` in seconds: more than 0 and at most 300 (the default); more is refused (RangeError). */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests). */
  now?: number;
}

/** The HMAC key of a `whsec_` secret: the bytes its base64 encodes (standard or URL-safe alphabet). */
function keyOf(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('a signing secret is empty');
  return key;
}

function signWithKey(key: Buffer, id: string, timestamp: number | string, payload: Buffer | Uint8Array | string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(payload).digest('base64')}`;
}

/** One `v1,<base64>` entry of `webhook-signature` — what the service sends (for tests and local tools). */
export function signStandardWebhook(secret: string, id: string, timestamp: number | string, payload: Buffer | Uint8Array | string): string {
  return signWithKey(keyOf(secret), id, timestamp, payload);
}

/**
 * Verifies a request in the Standard Webhooks format and parses it into a typed event. `payload`
 * must be the exact raw body, `secrets` the endpoint's `whsec_` secret (or several during a
 * rotation). Checks the timestamp window (≤ 300 s), every `v1,` signature of the header against
 * every secret in constant time, and that `webhook-id` is the body's `id`. Throws
 * WebhookVerificationError otherwise (never naming a secret).
 */
export function verifyStandardWebhook(
  payload: Buffer | Uint8Array | string,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyStandardWebhookOptions = {},
): WebhookEvent {
  const tolerance = checkedTolerance(options.toleranceSeconds);
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => typeof s === 'string' && s.length > 0).map(keyOf);
  if (keys.length === 0) throw new WebhookVerificationError('no signing secret given');
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw new WebhookVerificationError('the payload must be the raw request body (Buffer or string), not parsed JSON');
  }
  const id = headerOf(headers, STANDARD_WEBHOOK_HEADERS.id);
  const timestamp = headerOf(headers, STANDARD_WEBHOOK_HEADERS.timestamp);
  const signature = headerOf(headers, STANDARD_WEBHOOK_HEADERS.signature);
  if (!id) throw new WebhookVerificationError('missing webhook-id');
  checkTimestamp(timestamp, STANDARD_WEBHOOK_HEADERS.timestamp, options.now, tolerance);
  if (!signature) throw new WebhookVerificationError('missing webhook-signature');
  const received = signature.split(' ').filter((entry) => entry.startsWith('v1,'));
  requireMatch(keys.map((key) => signWithKey(key, id, timestamp, payload)), received);

  const event = parseWebhookEvent(payload);
  if (event.id !== id) throw new WebhookVerificationError('webhook-id does not match the body');
  return event;
}

/** Holds the `whsec_` secret(s) of one Standard Webhooks endpoint: `new StandardWebhook([current, previous]).verify(body, headers)`. */
export class StandardWebhook {
  readonly #secrets: readonly string[];

  constructor(
    secrets: string | readonly string[],
    private readonly options: VerifyStandardWebhookOptions = {},
  ) {
    this.#secrets = typeof secrets === 'string' ? [secrets] : [...secrets];
  }

  verify(payload: Buffer | Uint8Array | string, headers: WebhookHeaders): WebhookEvent {
    return verifyStandardWebhook(payload, headers, this.#secrets, this.options);
  }

  toJSON(): Record<string, unknown> {
    return { secrets: this.#secrets.length };
  }
}
