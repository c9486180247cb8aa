import { createHmac } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import { checkedTolerance, checkTimestamp, headerOf as header, requireMatch, type WebhookHeaders } from './signature-checks';
import type { Alarm, Shipment } from './generated/models';

/** Default and maximum accepted age of a webhook timestamp, in seconds (spec §6.4). */
export { WEBHOOK_TOLERANCE_SECONDS, type WebhookHeaders } from './signature-checks';

export const WEBHOOK_HEADERS = {
  event: 'x-service-event',
  eventId: 'x-service-event-id',
  deliveryId: 'x-service-delivery-id',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
} as const;

/** The event types the service publishes today. New ones may appear without a version change. */
export const WEBHOOK_EVENT_TYPES = ['alarm.created', 'alarm.resolved', 'shipment.created', 'shipment.completed'] as const;
export type KnownWebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

interface EventEnvelope<T extends string, D> {
  /** Event id, equal to the X-Service-Event-ID header: de-duplicate on it. */
  id: string;
  type: T;
  created_at: string;
  data: D;
}

export type AlarmCreatedEvent = EventEnvelope<'alarm.created', Alarm>;
export type AlarmResolvedEvent = EventEnvelope<'alarm.resolved', Alarm>;
/** `data` is the representation GET /shipments/{id}/ returns. */
export type ShipmentCreatedEvent = EventEnvelope<'shipment.created', Shipment>;
export type ShipmentCompletedEvent = EventEnvelope<'shipment.completed', Shipment>;
export type KnownWebhookEvent = AlarmCreatedEvent | AlarmResolvedEvent | ShipmentCreatedEvent | ShipmentCompletedEvent;
/** An event of a type this version of the library does not know: passed through, not rejected. */
export type UnknownWebhookEvent = EventEnvelope<string, Record<string, unknown>>;
export type WebhookEvent = KnownWebhookEvent | UnknownWebhookEvent;

/** Narrows an event to a known type: `if (isEventType(event, 'alarm.created')) event.data.severity`. */
export function isEventType<T extends KnownWebhookEventType>(event: WebhookEvent, type: T): event is Extract<KnownWebhookEvent, { type: T }> {
  return event.type === type;
}

export interface VerifyWebhookOptions {
  /** Maximum age (and clock skew) of the timestamp in seconds: 300 (the default) or less; more is refused (RangeError). */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests). */
  now?: number;
}

function rawBytes(payload: Buffer | Uint8Array | string): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new WebhookVerificationError('the payload must be the raw request body (Buffer or string), not parsed JSON');
}

/** `v1=` + lowercase hex HMAC-SHA256 of `{timestamp}.{raw body}` — what the service sends. */
export function signWebhook(secret: string, timestamp: number | string, payload: Buffer | Uint8Array | string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBytes(payload)).digest('hex')}`;
}

/**
 * Verifies a webhook request and parses it into a typed event. `payload` must be the exact raw
 * body bytes (e.g. `express.raw({ type: 'application/json' })`), `secrets` one signing secret or
 * several during a rotation. Checks the timestamp is within the tolerance (300 s) and compares
 * signatures in constant time. Throws WebhookVerificationError otherwise (never naming a secret).
 */
export function verifyWebhook(
  payload: Buffer | Uint8Array | string,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => typeof s === 'string' && s.length > 0);
  if (keys.length === 0) throw new WebhookVerificationError('no signing secret given');
  const body = rawBytes(payload);
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp);
  const signature = header(headers, WEBHOOK_HEADERS.signature);
  checkTimestamp(timestamp, 'X-Service-Timestamp', options.now, checkedTolerance(options.toleranceSeconds));
  if (!signature) throw new WebhookVerificationError('missing X-Service-Signature');
  // The header may carry several signatures (space or comma separated); only `v1=` is known.
  const received = signature.split(/[\s,]+/).filter((part) => part.startsWith('v1='));
  requireMatch(keys.map((secret) => signWebhook(secret, timestamp, body)), received);

  const event = parseWebhookEvent(body);
  const eventId = header(headers, WEBHOOK_HEADERS.eventId);
  if (eventId && eventId !== event.id) throw new WebhookVerificationError('X-Service-Event-ID does not match the body');
  return event;
}

/** Parses a (verified) raw body into an event; unknown types are returned as they are. */
export function parseWebhookEvent(payload: Buffer | Uint8Array | string): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBytes(payload).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const event = parsed as Partial<WebhookEvent> | null;
  if (!event || typeof event !== 'object' || typeof event.id !== 'string' || typeof event.type !== 'string' || typeof event.data !== 'object') {
    throw new WebhookVerificationError('the body is not an event envelope {id, type, created_at, data}');
  }
  return event as WebhookEvent;
}

/** Holds the signing secret(s) of one endpoint: `new Webhook([current, previous]).verify(body, headers)`. */
export class Webhook {
  readonly #secrets: readonly string[];

  constructor(secrets: string | readonly string[], private readonly options: VerifyWebhookOptions = {}) {
    checkedTolerance(options.toleranceSeconds);
    this.#secrets = typeof secrets === 'string' ? [secrets] : [...secrets];
  }

  verify(payload: Buffer | Uint8Array | string, headers: WebhookHeaders): WebhookEvent {
    return verifyWebhook(payload, headers, this.#secrets, this.options);
  }

  toJSON(): Record<string, unknown> {
    return { secrets: this.#secrets.length };
  }
}
