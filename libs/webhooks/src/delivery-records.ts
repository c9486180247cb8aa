import type { AccountId } from '@app/vocabulary';

/** NOTIFY channel that wakes the dispatcher's delivery worker (it also polls). */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

/** `event`: fan-out of a published event (unique per event and endpoint); `test` and `resend`: by hand. */
export type DeliveryOrigin = 'event' | 'test' | 'resend';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface NewDelivery {
  accountId: AccountId;
  endpointId: string;
  eventId: string;
  eventType: string;
  origin: Exclude<DeliveryOrigin, 'event'>;
  /** The exact bytes every attempt sends. */
  body: Buffer;
}

// insertDelivery, notifyDeliveryWorkers and cancelPendingDeliveries are in ./store/webhooks.repository.
