/** Request format of spec §6.3. Header names are lowercase as Node presents received headers. */
export const WEBHOOK_HEADERS = {
  event: 'x-service-event',
  eventId: 'x-service-event-id',
  deliveryId: 'x-service-delivery-id',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
} as const;

export const WEBHOOK_CONTENT_TYPE = 'application/json; charset=utf-8';
export const WEBHOOK_USER_AGENT = 'Service-Webhooks/1.0';

/** Sent by "send a test event": not a subscribable type; receivers ignore unknown types anyway. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';
