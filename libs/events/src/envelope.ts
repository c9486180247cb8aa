/** The webhook event envelope of spec §2.5: `id` equals X-Service-Event-ID. */
export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  data: T;
}

/** What travels on RabbitMQ: the envelope plus the routing facts the dispatcher needs. */
export interface DomainEventMessage {
  account_id: string;
  envelope: EventEnvelope;
}
