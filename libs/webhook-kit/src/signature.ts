import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `v1=` + lowercase hex HMAC-SHA256 of `{timestamp}.{raw body}` (spec §6.4). */
export function signWebhook(secret: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return `${SIGNATURE_VERSION}=${hmac.digest('hex')}`;
}

export interface VerifyOptions {
  /** Accept any of these secrets (during a rotation a receiver may hold two). */
  secrets: string[];
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer | string;
  toleranceSeconds?: number;
  now?: number;
}

/**
 * The receiver side, for customers and for our own tests: checks the timestamp window, then
 * compares the signature in constant time against each accepted secret.
 */
export function verifyWebhook(options: VerifyOptions): boolean {
  const { timestamp, signature } = options;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature) return false;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const received = Buffer.from(signature);
  return options.secrets.some((secret) => {
    const expected = Buffer.from(signWebhook(secret, timestamp, options.rawBody));
    return expected.length === received.length && timingSafeEqual(expected, received);
  });
}
