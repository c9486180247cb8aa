import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Authenticates domain-event messages between the api's outbox relay and the dispatcher. The
 * events exchange is not a trust boundary (a gateway or any other broker user might publish to
 * it), so the relay signs each message body with a key derived from SECRETS_KEY — which only the
 * api and the dispatcher hold — and the dispatcher fans out only what verifies.
 */
export const EVENT_SIGNATURE_HEADER = 'x-coldchain-signature';

const VERSION = 'v1';

/** HKDF-SHA256 of the service's secrets key, for this purpose only. */
export function eventMessageKey(secretsKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'coldchain/event-message/v1', 32));
}

export function signEventMessage(key: Buffer, body: Buffer): string {
  return `${VERSION}=${createHmac('sha256', key).update(body).digest('hex')}`;
}

/** Constant-time check of the header a message arrived with (any type: it comes off the wire). */
export function verifyEventMessage(key: Buffer, body: Buffer, header: unknown): boolean {
  if (typeof header !== 'string' && !Buffer.isBuffer(header)) return false;
  const presented = Buffer.from(String(header));
  const expected = Buffer.from(signEventMessage(key, body));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
