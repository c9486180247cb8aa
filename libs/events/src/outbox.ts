import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { EventEnvelope } from './envelope';
import type { EventType } from './event-types';
import type { AccountId } from '@app/vocabulary';

/** The PostgreSQL NOTIFY channel that wakes the outbox relay when an event is committed. */
export const OUTBOX_NOTIFY_CHANNEL = 'outbox_events';

export interface OutboxEventInput {
  accountId: AccountId;
  type: EventType;
  /** e.g. 'alarm' / 'shipment'; with aggregateId, orders events of one aggregate. */
  aggregateType: string;
  aggregateId: string;
  data: Record<string, unknown>;
}

/**
 * Writes a domain event to the transactional outbox. Call it with the EntityManager of the
 * transaction that makes the change: the event exists if and only if the change committed.
 * The relay publishes rows in `seq` order.
 */
export async function writeOutboxEvent(manager: EntityManager, input: OutboxEventInput): Promise<EventEnvelope> {
  const envelope: EventEnvelope = {
    id: uuidv7(),
    type: input.type,
    created_at: new Date().toISOString(),
    data: input.data,
  };
  await manager.query(
    `INSERT INTO outbox_events (id, account_id, event_type, aggregate_type, aggregate_id, envelope)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
    [envelope.id, input.accountId, input.type, input.aggregateType, input.aggregateId, JSON.stringify(envelope)],
  );
  // Wakes the relay at once (it also polls); delivered on commit only.
  await manager.query(`SELECT pg_notify('${OUTBOX_NOTIFY_CHANNEL}', '')`);
  return envelope;
}
