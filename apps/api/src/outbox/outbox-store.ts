import type { EntityManager } from 'typeorm';
import { execSql } from '@app/database';
import type { EventEnvelope } from '@app/events';

export interface OutboxRow {
  seq: string;
  id: string;
  account_id: string;
  event_type: string;
  envelope: EventEnvelope;
}

/**
 * Locks the oldest unpublished rows (SKIP LOCKED: other replicas take the next ones) and returns
 * those that may go out now, in `seq` order. A row whose aggregate has an earlier unpublished row
 * outside this batch (held by another replica, or not yet published) waits for a later round:
 * that keeps each aggregate's events in order across replicas.
 */
export async function claimOutboxBatch(manager: EntityManager, limit: number): Promise<OutboxRow[]> {
  const { rows } = await execSql<OutboxRow>(
    manager,
    `WITH batch AS MATERIALIZED (
       SELECT seq FROM outbox_events WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     SELECT o.seq, o.id, o.account_id, o.event_type, o.envelope
       FROM outbox_events o JOIN batch b ON b.seq = o.seq
      WHERE NOT EXISTS (
        SELECT 1 FROM outbox_events earlier
         WHERE earlier.published_at IS NULL
           AND earlier.aggregate_type = o.aggregate_type AND earlier.aggregate_id = o.aggregate_id
           AND earlier.seq < o.seq
           AND earlier.seq NOT IN (SELECT seq FROM batch))
      ORDER BY o.seq`,
    [limit],
  );
  return rows;
}

export async function markPublished(manager: EntityManager, seqs: string[]): Promise<void> {
  if (seqs.length === 0) return;
  await execSql(manager, 'UPDATE outbox_events SET published_at = now() WHERE seq = ANY($1::bigint[])', [seqs]);
}

export interface OutboxBacklog {
  unpublished: number;
  oldestAgeSeconds: number;
}

export async function outboxBacklog(manager: EntityManager): Promise<OutboxBacklog> {
  const { rows } = await execSql<{ unpublished: string; oldest: Date | null }>(
    manager,
    'SELECT count(*) AS unpublished, min(created_at) AS oldest FROM outbox_events WHERE published_at IS NULL',
  );
  const oldest = rows[0]?.oldest;
  return { unpublished: Number(rows[0]?.unpublished ?? 0), oldestAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0 };
}
