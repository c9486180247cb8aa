import type { AccountId } from '@app/vocabulary';

/** NOTIFY channel that wakes the dispatcher's delivery worker (it also polls). */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

/** `event`: fan-out of a published event (unique per event and endpoint); `test` and `resend`: by hand; `recover`: queued again by a recovery after an outage (recovery.ts). */
export type DeliveryOrigin = 'event' | 'test' | 'resend' | 'recover';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface NewDelivery {
  accountId: AccountId;
  endpointId: string;
  eventId: string;
  eventType: string;
  origin: Exclude<DeliveryOrigin, 'event' | 'recover'>;
  /** The exact bytes every attempt sends. */
  body: Buffer;
}

// insertDelivery, notifyDeliveryWorkers and cancelPendingDeliveries are in ./store/webhooks.repository.
