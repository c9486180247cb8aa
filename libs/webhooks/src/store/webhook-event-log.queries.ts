import { defineQueries } from '@app/database/sql';

/**
 * The outcome of an event over its deliveries (`d` is the event's first delivery): per endpoint,
 * `delivered` once any delivery to it got a 2xx, else `failing` while one is pending after a failed
 * attempt, else `pending` while one is queued, else `failed` (given up, or cancelled when the
 * endpoint was disabled). The event's outcome is its worst endpoint's: failed > failing > pending
 * > delivered. Mirrored by `eventOutcome` in ../event-log.ts (the detail page, per endpoint).
 */
const EVENT_OUTCOME = `
  CROSS JOIN LATERAL (
    SELECT (ARRAY['delivered', 'pending', 'failing', 'failed'])[max(e.rank) + 1] AS outcome, count(*)::int AS endpoints
      FROM (SELECT CASE WHEN bool_or(x.status = 'succeeded') THEN 0
                        WHEN bool_or(x.status = 'pending' AND x.attempts > 0) THEN 2
                        WHEN bool_or(x.status = 'pending') THEN 1
                        ELSE 3 END AS rank
              FROM webhook_deliveries x
             WHERE x.account_id = $1 AND x.event_id = d.event_id
             GROUP BY x.endpoint_id) e
  ) o`;

/**
 * One row per event of the account: its first delivery (the fan-out creates one per subscribed
 * endpoint in one statement, so they share created_at; the smallest id wins). A keyset scan of
 * webhook_deliveries_account_created_idx, newest first; $2 is WEBHOOK_RETENTION_DAYS, then the
 * filters (NULL: any), the position after which the page starts, and the page size + 1.
 */
const EVENT_PAGE = (direction: 'older' | 'newer'): string => `
  SELECT d.event_id, d.event_type, d.created_at, d.created_at::text AS created_at_key, o.outcome, o.endpoints
    FROM webhook_deliveries d
    ${EVENT_OUTCOME}
   WHERE d.account_id = $1
     AND d.created_at >= now() - make_interval(days => $2)
     AND ($3::text IS NULL OR d.event_type = $3::text)
     AND ($4::timestamptz IS NULL OR d.created_at >= $4::timestamptz)
     AND ($5::timestamptz IS NULL OR d.created_at < $5::timestamptz)
     AND ($6::text IS NULL OR o.outcome = $6::text)
     AND ($7::timestamptz IS NULL OR (d.created_at, d.event_id) ${direction === 'older' ? '<' : '>'} ($7::timestamptz, $8::uuid))
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries f
                      WHERE f.account_id = $1 AND f.event_id = d.event_id AND (f.created_at, f.id) < (d.created_at, d.id))
   ORDER BY d.created_at ${direction === 'older' ? 'DESC' : 'ASC'}, d.event_id ${direction === 'older' ? 'DESC' : 'ASC'}
   LIMIT $9`;

/**
 * The panel's webhook event log (spec §6, issue 17): read-only views of the webhooks family's
 * deliveries and attempt log, by event. It writes nothing: a resend goes through the endpoint
 * service (webhooks.queries.ts owns the tables).
 */
export const WEBHOOK_EVENT_LOG_QUERIES = defineQueries({
  owner: 'webhook-event-log',
  tables: [],
  reads: ['webhook_deliveries', 'webhook_attempts', 'webhook_endpoints'],
  tenant: {
    /** Newest first: the page after ($7, $8), or the first page. */
    olderEvents: EVENT_PAGE('older'),
    /** Oldest first: the events just newer than ($7, $8) (the "Newer" link), reversed by the caller. */
    newerEvents: EVENT_PAGE('newer'),
    eventDeliveries: `
      SELECT d.id, d.endpoint_id, e.url AS endpoint_url, e.enabled AS endpoint_enabled, d.event_type, d.origin, d.status, d.attempts,
             d.created_at, d.completed_at
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.account_id = $1 AND d.event_id = $2
       ORDER BY e.url, e.id, d.created_at, d.id`,
    eventBody: `
      SELECT body FROM webhook_deliveries WHERE account_id = $1 AND event_id = $2 AND body IS NOT NULL
       ORDER BY created_at, id LIMIT 1`,
    eventAttempts: `
      SELECT a.id, a.webhook_delivery_id, a.endpoint_id, a.attempt_number, a.attempted_at, a.outcome, a.status_code, a.error, a.duration_ms
        FROM webhook_deliveries d JOIN webhook_attempts a ON a.webhook_delivery_id = d.id
       WHERE d.account_id = $1 AND d.event_id = $2 AND a.account_id = $1
       ORDER BY a.attempted_at, a.id`,
  },
});
