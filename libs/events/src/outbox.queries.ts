import { defineQueries } from '@app/database/sql';
import { OUTBOX_NOTIFY_CHANNEL } from './outbox-channel';

export const OUTBOX_QUERIES = defineQueries({
  owner: 'outbox',
  tables: ['outbox_events'],
  tenant: {
    insertEvent: `
      INSERT INTO outbox_events (account_id, id, event_type, aggregate_type, aggregate_id, envelope)
      VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
    eventOfAccount: `SELECT event_type, envelope FROM outbox_events WHERE account_id = $1 AND id = $2`,
  },
  platform: {
    notifyRelay: `SELECT pg_notify('${OUTBOX_NOTIFY_CHANNEL}', '')`,
    claimBatch: `
      WITH batch AS MATERIALIZED (
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
    markPublished: `UPDATE outbox_events SET published_at = now() WHERE seq = ANY($1::bigint[])`,
    backlog: `SELECT count(*) AS unpublished, min(created_at) AS oldest FROM outbox_events WHERE published_at IS NULL`,
    prunePublished: `
      DELETE FROM outbox_events WHERE seq IN (
        SELECT seq FROM outbox_events
         WHERE published_at IS NOT NULL AND published_at < now() - make_interval(days => $1)
         LIMIT $2)
      RETURNING 1`,
  },
});
