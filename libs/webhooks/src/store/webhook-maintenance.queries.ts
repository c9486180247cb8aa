import { defineQueries } from '@app/database/sql';

/** A version 7 UUID made in SQL (time-ordered like newId()), for rows a set-based INSERT … SELECT creates. */
const UUID_V7 = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
         placing substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * The events a recovery of endpoint $2 of account $1 may queue from [$3, $5) (recoverDeliveries,
 * countRecoverable): the CTEs up to `candidates`; each candidate `c` is then filtered by RECOVERABLE.
 */
const RECOVERABLE_CANDIDATES = `WITH endpoint AS (
            SELECT id, events, created_at FROM webhook_endpoints WHERE account_id = $1 AND id = $2 AND enabled
          ),
          delivered AS (
            SELECT DISTINCT d.event_id FROM webhook_deliveries d JOIN endpoint e ON e.id = d.endpoint_id
             WHERE d.account_id = $1 AND d.endpoint_id = $2 AND d.created_at >= $3 AND d.created_at < $5
               AND d.origin <> 'test' AND d.event_type = ANY(e.events)
          ),
          candidates AS (
            SELECT v.event_id, x.event_type, x.first_at AS at, CASE WHEN x.fanned_out THEN 'recover' ELSE 'event' END AS origin
              FROM delivered v
             CROSS JOIN LATERAL (
               SELECT min(d.event_type) AS event_type, min(d.created_at) AS first_at, bool_or(d.origin = 'event') AS fanned_out,
                      bool_or(d.status IN ('pending', 'succeeded')) AS settled
                 FROM webhook_deliveries d WHERE d.account_id = $1 AND d.event_id = v.event_id AND d.endpoint_id = $2
             ) x
             WHERE NOT x.settled AND x.first_at >= $3
            UNION ALL
            SELECT o.id, o.event_type, o.created_at, 'event'
              FROM outbox_events o JOIN endpoint e ON o.event_type = ANY(e.events)
             WHERE o.account_id = $1 AND o.created_at >= greatest($3, e.created_at) AND o.created_at < $5
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.account_id = $1 AND d.event_id = o.id AND d.endpoint_id = $2)
          )`;
/** A candidate can be sent again: its body is still stored (outbox envelope or a delivery's bytes). */
const RECOVERABLE = `EXISTS (SELECT 1 FROM outbox_events o WHERE o.id = c.event_id AND o.account_id = $1)
                OR EXISTS (SELECT 1 FROM webhook_deliveries b WHERE b.account_id = $1 AND b.event_id = c.event_id AND b.body IS NOT NULL)`;

/**
 * The bytes to send event `c.event_id` again to endpoint $2 of account $1 (recovery, bulk resend):
 * those already sent for it (to this endpoint first), else its outbox envelope; `stored_body` is
 * NULL when neither is kept any more.
 */
const STORED_BODY = `coalesce(sent.body, convert_to(ob.envelope::text, 'UTF8')) AS stored_body`;
const STORED_BODY_JOINS = `LEFT JOIN LATERAL (
              SELECT b.body FROM webhook_deliveries b
               WHERE b.account_id = $1 AND b.event_id = c.event_id AND b.body IS NOT NULL
               ORDER BY (b.endpoint_id = $2) DESC, b.created_at LIMIT 1
            ) sent ON true
            LEFT JOIN outbox_events ob ON sent.body IS NULL AND ob.id = c.event_id AND ob.account_id = $1`;

/** Where the event log lists a delivery: its event's time (a recovery's row), else when it was queued. */
const LISTED = (row: string): string => `coalesce(${row}.event_at, ${row}.created_at)`;

/**
 * The events a bulk resend of endpoint $2 of account $1 may queue (issue 31 item 4): those the
 * event log lists for that endpoint under the filters — $3 WEBHOOK_RETENTION_DAYS, $4 type, [$5, $6)
 * the event's listed time at the endpoint (its first delivery there), $7 its outcome there (NULL:
 * any) — of a type the endpoint (enabled) subscribes to or the test event, none of them already
 * waiting to be sent to it, whose bytes are still stored; oldest first, at most $8.
 */
const RESENDABLE = `WITH endpoint AS (
            SELECT id, events FROM webhook_endpoints WHERE account_id = $1 AND id = $2 AND enabled
          ),
          firsts AS (
            SELECT DISTINCT ON (w.event_id) w.event_id, w.event_type, ${LISTED('w')} AS at
              FROM webhook_deliveries w JOIN endpoint e ON e.id = w.endpoint_id
             WHERE w.account_id = $1 AND w.endpoint_id = $2
               AND ${LISTED('w')} >= now() - make_interval(days => $3)
               AND ($4::text IS NULL OR w.event_type = $4::text)
               AND ($5::timestamptz IS NULL OR ${LISTED('w')} >= $5::timestamptz)
               AND ($6::timestamptz IS NULL OR ${LISTED('w')} < $6::timestamptz)
               AND (w.event_type = ANY(e.events) OR w.event_type = 'webhook.test')
             ORDER BY w.event_id, ${LISTED('w')}, w.id
          ),
          candidates AS (
            SELECT f.event_id, f.event_type, f.at FROM firsts f
             CROSS JOIN LATERAL (
               SELECT min(${LISTED('x')}) AS first_at, bool_or(x.status = 'pending') AS waiting,
                      CASE WHEN bool_or(x.status = 'succeeded') THEN 'delivered'
                           WHEN bool_or(x.status = 'pending' AND x.attempts > 0) THEN 'failing'
                           WHEN bool_or(x.status = 'pending') THEN 'pending'
                           WHEN bool_or(x.status IN ('failed', 'cancelled')) THEN 'failed'
                           ELSE 'not_sent' END AS outcome
                 FROM webhook_deliveries x WHERE x.account_id = $1 AND x.event_id = f.event_id AND x.endpoint_id = $2
             ) o
             WHERE o.first_at = f.at AND NOT o.waiting AND ($7::text IS NULL OR o.outcome = $7::text)
          ),
          chosen AS (
            SELECT c.event_id, c.event_type, c.at, ${STORED_BODY}
              FROM candidates c
            ${STORED_BODY_JOINS}
             WHERE sent.body IS NOT NULL OR ob.id IS NOT NULL
             ORDER BY c.at, c.event_id
             LIMIT $8
          )`;

/** Housekeeping (bounded history) and recovery after an outage (webhook-maintenance.repository.ts): they write the tables of the other two owners of the group. */
export const WEBHOOK_MAINTENANCE_QUERIES = defineQueries({
  owner: 'webhook-maintenance',
  group: 'webhooks',
  tables: [],
  reads: ['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts', 'webhook_endpoint_hourly_stats', 'outbox_events'],
  tenant: {
    // Recovery after an outage (recovery.ts). The endpoint row is locked first, so two recoveries of one
    // endpoint run one after the other and the second sees the first one's pending deliveries.
    lockEndpointForRecovery: 'SELECT enabled, events FROM webhook_endpoints WHERE account_id = $1 AND id = $2 FOR NO KEY UPDATE',
    // When the endpoint's current run of failures began: the first delivery failing since its last success.
    failingSince: `
      SELECT min(d.created_at) AS since
        FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.webhook_delivery_id AND d.account_id = $1
       WHERE a.account_id = $1 AND a.endpoint_id = $2 AND a.outcome <> 'succeeded'
         AND a.attempted_at > coalesce((SELECT max(s.attempted_at) FROM webhook_attempts s
                                          WHERE s.account_id = $1 AND s.endpoint_id = $2 AND s.outcome = 'succeeded'), '-infinity')`,
    // Queues, once each, every event of the endpoint's subscribed types in [$3, $5) without a pending or
    // succeeded delivery to it, oldest first, at most $4 (recovery.ts runs it slice by slice). An
    // event's time: when it was first queued for the endpoint, or, never queued, its outbox row's.
    // Candidates: events with deliveries to the endpoint that all failed or were cancelled (new row,
    // origin 'recover'), and events the fan-out skipped while the endpoint was disabled (the row the
    // fan-out would have made, origin 'event': the unique index turns a late fan-out into a no-op).
    // The body is the bytes already sent for the event (this endpoint's first), else the outbox
    // envelope; an event with neither (past the retention period) is skipped. Every row is marked
    // `recovered` (the attempt log's origin) and carries its event's time (`event_at`: where the event log lists it).
    recoverDeliveries: `
      INSERT INTO webhook_deliveries (account_id, id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at, recovered, event_at)
      SELECT $1, ${UUID_V7}, $2, c.event_id, c.event_type, c.origin, c.stored_body, 'pending', now(), true, c.at
        FROM (
          ${RECOVERABLE_CANDIDATES},
          chosen AS (
            SELECT c.event_id, c.event_type, c.origin, c.at FROM candidates c
             WHERE ${RECOVERABLE}
             ORDER BY c.at, c.event_id
             LIMIT $4
          )
          SELECT c.event_id, c.event_type, c.origin, c.at, ${STORED_BODY}
            FROM chosen c
            ${STORED_BODY_JOINS}
        ) c
      ON CONFLICT (event_id, endpoint_id) WHERE origin = 'event' DO NOTHING`,
    // Bulk resend from the event log (RESENDABLE): a `resend` delivery, due now, per chosen event.
    resendMatching: `
      ${RESENDABLE}
      INSERT INTO webhook_deliveries (account_id, id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
      SELECT $1, ${UUID_V7}, $2, c.event_id, c.event_type, 'resend', c.stored_body, 'pending', now() FROM chosen c`,
    countResendable: `
      ${RESENDABLE}
      SELECT count(*)::int AS n FROM chosen`,
    // What recoverDeliveries would queue now from [$3, $5), counted up to $4 (the panel's preview: "24 events will be sent again").
    countRecoverable: `
      ${RECOVERABLE_CANDIDATES}
      SELECT count(*)::int AS n FROM (SELECT 1 FROM candidates c WHERE ${RECOVERABLE} LIMIT $4) c`,
  },
  platform: {
    // Housekeeping (the api, hourly): bounded batches; the last parameter is the batch size.
    pruneOldAttempts: `
      DELETE FROM webhook_attempts WHERE id IN (
        SELECT id FROM (
          SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY attempted_at DESC, id DESC) AS newest
            FROM webhook_attempts
        ) ranked WHERE newest > $1 LIMIT $2)`,
    pruneClosedDeliveries: `
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT d.id FROM webhook_deliveries d
         WHERE d.status <> 'pending' AND d.completed_at < now() - make_interval(days => $1)
           AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.webhook_delivery_id = d.id)
         LIMIT $2)`,
    pruneHourlyStats: `
      DELETE FROM webhook_endpoint_hourly_stats WHERE (endpoint_id, hour) IN (
        SELECT endpoint_id, hour FROM webhook_endpoint_hourly_stats WHERE hour < now() - make_interval(hours => $1) LIMIT $2)`,
    pruneDeliveryBodies: `
      UPDATE webhook_deliveries SET body = NULL WHERE id IN (
        SELECT id FROM webhook_deliveries
         WHERE status <> 'pending' AND completed_at < now() - make_interval(days => $1) AND body IS NOT NULL
         LIMIT $2)`,
  },
});
