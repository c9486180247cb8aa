import { WEBHOOK_HEADERS } from './headers';
import { verifyWebhook } from './signature';

export type IncomingHeaders = Record<string, string | string[] | undefined>;

export interface VerifiedWebhook {
  eventId: string;
  eventType: string;
  deliveryId: string | undefined;
}

/** A header's first value, found whatever its case. */
export function header(headers: IncomingHeaders, name: string): string | undefined {
  const direct = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(direct) ? direct[0] : direct;
}

/**
 * The receiver helper: checks a received request (headers as Node gives them, the exact raw body
 * bytes) against one or more secrets (two during a rotation), within the 300 s tolerance, in
 * constant time. Returns the identifiers to de-duplicate on, or null when the request must be
 * rejected.
 */
export function verifyWebhookRequest(
  headers: IncomingHeaders,
  rawBody: Buffer | string,
  secrets: string[],
  options: { toleranceSeconds?: number; now?: number } = {},
): VerifiedWebhook | null {
  const ok = verifyWebhook({
    secrets,
    rawBody,
    timestamp: header(headers, WEBHOOK_HEADERS.timestamp),
    signature: header(headers, WEBHOOK_HEADERS.signature),
    ...options,
  });
  const eventId = header(headers, WEBHOOK_HEADERS.eventId);
  const eventType = header(headers, WEBHOOK_HEADERS.event);
  if (!ok || !eventId || !eventType) return null;
  return { eventId, eventType, deliveryId: header(headers, WEBHOOK_HEADERS.deliveryId) };
}
