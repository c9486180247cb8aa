import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { v7 as uuidv7 } from 'uuid';
import type { EventEnvelope } from './envelope';
import type { EventType } from './event-types';
import { OUTBOX_QUERIES as Q } from './outbox.queries';


export interface OutboxEventInput {
  accountId: AccountId;
  type: EventType;
  /** e.g. 'alarm' / 'shipment'; with aggregateId, orders events of one aggregate. */
  aggregateType: string;
  aggregateId: string;
  data: Record<string, unknown>;
}

export interface OutboxRow {
  seq: string;
  id: string;
  account_id: string;
  event_type: string;
  envelope: EventEnvelope;
}

export interface OutboxBacklog {
  unpublished: number;
  oldestAgeSeconds: number;
}

/**
 * Writes a domain event to the transactional outbox. Call it with the EntityManager of the
 * transaction that makes the change: the event exists if and only if the change committed.
 * The relay publishes rows in `seq` order.
 */
export async function writeOutboxEvent(manager: Db, input: OutboxEventInput): Promise<EventEnvelope> {
  const envelope: EventEnvelope = {
    id: uuidv7(),
    type: input.type,
    created_at: new Date().toISOString(),
    data: input.data,
  };
  await sql.run(manager, Q.insertEvent, [input.accountId, envelope.id, input.type, input.aggregateType, input.aggregateId, JSON.stringify(envelope)]);
  // Wakes the relay at once (it also polls); delivered on commit only.
  await sql.run(manager, Q.notifyRelay);
  return envelope;
}

/** The committed envelope of one of the account's events (for a resend), or null. */
export function findAccountEvent(db: Db, accountId: AccountId, eventId: string): Promise<{ event_type: string; envelope: EventEnvelope } | null> {
  return sql.first(db, Q.eventOfAccount, [accountId, eventId]);
}

/**
 * Locks the oldest unpublished rows (SKIP LOCKED: other replicas take the next ones) and returns
 * those that may go out now, in `seq` order. A row whose aggregate has an earlier unpublished row
 * outside this batch (held by another replica, or not yet published) waits for a later round:
 * that keeps each aggregate's events in order across replicas.
 */
export function claimOutboxBatch(manager: Db, limit: number): Promise<OutboxRow[]> {
  return sql.rows<OutboxRow>(manager, Q.claimBatch, [limit]);
}

export async function markPublished(manager: Db, seqs: string[]): Promise<void> {
  if (seqs.length === 0) return;
  await sql.run(manager, Q.markPublished, [seqs]);
}

export async function outboxBacklog(db: Db): Promise<OutboxBacklog> {
  const row = await sql.first<{ unpublished: string; oldest: Date | null }>(db, Q.backlog);
  const oldest = row?.oldest;
  return { unpublished: Number(row?.unpublished ?? 0), oldestAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0 };
}

/** Deletes published events older than the retention, `batch` at a time; returns how many. */
export async function prunePublishedEvents(db: Db, retentionDays: number, batch: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await sql.count(db, Q.prunePublished, [retentionDays, batch]);
    deleted += count;
    if (count < batch) return deleted;
  }
}
