import type { AccountId } from '@app/vocabulary';

/** NOTIFY channel that wakes the dispatcher's delivery worker (it also polls). */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

/** `event`: fan-out of a published event (unique per event and endpoint); `test` and `resend`: by hand; `recover`: queued again by a recovery after an outage (recovery.ts). */
export type DeliveryOrigin = 'event' | 'test' | 'resend' | 'recover';
/** `skipped`: not sent, the endpoint was disabled when the event was fanned out (closed at once, no body). */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'skipped';

export interface NewDelivery {
  accountId: AccountId;
  endpointId: string;
  eventId: string;
  eventType: string;
  origin: Exclude<DeliveryOrigin, 'event' | 'recover'>;
  /** The exact bytes every attempt sends. */
  body: Buffer;
}

/**
 * An event's delivery outcome, over its deliveries (the event log's filter and column). Per
 * endpoint: `delivered` once any delivery of the event to it got a 2xx; else `failing` while a
 * delivery is pending after a failed attempt (the dispatcher retries it); else `pending` while one
 * is queued and not yet attempted; else `failed` when one failed (retries given up, or cancelled
 * when the endpoint was disabled); else `not_sent` (the endpoint was disabled when the event
 * happened, and no recovery has sent it yet). An event's outcome is that of its worst endpoint, in
 * this order: failed > not_sent > failing > pending > delivered.
 */
export const EVENT_OUTCOMES = ['delivered', 'pending', 'failing', 'not_sent', 'failed'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/** The event log's filters; null: any. `from` is inclusive, `to` exclusive (the time the event was first queued). */
export interface EventLogFilter {
  type: string | null;
  outcome: EventOutcome | null;
  from: Date | null;
  to: Date | null;
  /** Events sent (or being sent) to this endpoint of the account, with their outcome there. */
  endpoint?: string | null;
}

export const isEventOutcome = (value: string): value is EventOutcome => (EVENT_OUTCOMES as readonly string[]).includes(value);

// insertDelivery, notifyDeliveryWorkers and cancelPendingDeliveries are in ./store/webhook-deliveries.repository.
