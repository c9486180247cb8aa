import { createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULT_TOLERANCE_SECONDS } from './signature';
import { header, type IncomingHeaders } from './verify-request';

/**
 * The Standard Webhooks signature format (standardwebhooks.com), an endpoint's opt-in beside the
 * spec's `X-Service-*` headers: `webhook-id` (the event id, stable across retries),
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{raw body}">` (one per secret in force: two during
 * a rotation window). Header names are lowercase, as the format writes them.
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** The prefix of a Standard Webhooks secret; the rest is the base64 of the key bytes. */
export const STANDARD_WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a `whsec_` secret as Standard Webhooks defines it: the bytes the base64 after the
 * prefix encodes (a secret without the prefix is base64 as a whole). Node's decoder also reads the
 * URL-safe alphabet, so the base64url secrets issued before this format existed give their 32
 * random bytes too. Throws on an empty key.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(STANDARD_WEBHOOK_SECRET_PREFIX) ? secret.slice(STANDARD_WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('a Standard Webhooks secret must encode at least one byte');
  return key;
}

/** One `v1,<base64>` signature of `{id}.{timestamp}.{raw body}` with the key of `secret`. */
export function signStandardWebhook(secret: string, id: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', standardWebhookKey(secret));
  hmac.update(`${id}.${timestamp}.`);
  hmac.update(rawBody);
  return `v1,${hmac.digest('base64')}`;
}

/** The `webhook-signature` value: one signature per secret, space-separated, in the order given. */
export function standardWebhookSignatureHeader(secrets: readonly string[], id: string, timestamp: string, rawBody: Buffer | string): string {
  return secrets.map((secret) => signStandardWebhook(secret, id, timestamp, rawBody)).join(' ');
}

export interface VerifyStandardWebhookOptions {
  /** Accept any of these `whsec_` secrets (two during a rotation window). */
  secrets: readonly string[];
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer | string;
  /** At most 300 (the default): a wider window is refused, not widened. */
  toleranceSeconds?: number;
  now?: number;
}

/**
 * The receiver side: the timestamp within the tolerance, then every `v1,` signature of the header
 * compared in constant time with the one each secret gives. Unknown versions are skipped, as the
 * format asks.
 */
export function verifyStandardWebhook(options: VerifyStandardWebhookOptions): boolean {
  const { id, timestamp, signature } = options;
  if (!id || !timestamp || !/^\d{1,12}$/.test(timestamp) || !signature) return false;
  const tolerance = Math.min(options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, DEFAULT_TOLERANCE_SECONDS);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) return false;
  const received = signature
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part));
  let matched = false;
  for (const secret of options.secrets) {
    const expected = Buffer.from(signStandardWebhook(secret, id, timestamp, options.rawBody));
    for (const candidate of received) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  return matched;
}

export interface VerifiedStandardWebhook {
  /** `webhook-id`: the event id (the body's `id`); de-duplicate on it. */
  eventId: string;
}

/**
 * The receiver helper for an endpoint in the Standard Webhooks format: headers as Node gives them,
 * the exact raw body, one or more `whsec_` secrets. Returns the event id, or null when the request
 * must be rejected (bad signature, stale timestamp, or a `webhook-id` that is not the body's `id`).
 */
export function verifyStandardWebhookRequest(
  headers: IncomingHeaders,
  rawBody: Buffer | string,
  secrets: readonly string[],
  options: { toleranceSeconds?: number; now?: number } = {},
): VerifiedStandardWebhook | null {
  const id = header(headers, STANDARD_WEBHOOK_HEADERS.id);
  const ok = verifyStandardWebhook({
    secrets,
    rawBody,
    id,
    timestamp: header(headers, STANDARD_WEBHOOK_HEADERS.timestamp),
    signature: header(headers, STANDARD_WEBHOOK_HEADERS.signature),
    ...options,
  });
  if (!ok || !id) return null;
  let bodyId: unknown;
  try {
    bodyId = (JSON.parse(rawBody.toString()) as { id?: unknown } | null)?.id;
  } catch {
    return null;
  }
  return bodyId === id ? { eventId: id } : null;
}
