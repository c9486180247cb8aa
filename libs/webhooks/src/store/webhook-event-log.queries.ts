import { defineQueries } from '@app/database/sql';

/**
 * The outcome of an event over its deliveries (`d` is the event's first delivery; $9: to that endpoint only): per endpoint,
 * `delivered` once any delivery to it got a 2xx, else `failing` while one is pending after a failed
 * attempt, else `pending` while one is queued, else `failed` (given up, or cancelled when the
 * endpoint was disabled), else `not_sent` (skipped: the endpoint was disabled when the event was
 * fanned out). The event's outcome is its worst endpoint's: failed > not_sent > failing > pending
 * > delivered. Mirrored by `endpointOutcome` and `worstOutcome` in ../event-log.ts (the event's page).
 */
const EVENT_OUTCOME = `
  CROSS JOIN LATERAL (
    SELECT (ARRAY['delivered', 'pending', 'failing', 'not_sent', 'failed'])[max(e.rank) + 1] AS outcome, count(*)::int AS endpoints
      FROM (SELECT CASE WHEN bool_or(x.status = 'succeeded') THEN 0
                        WHEN bool_or(x.status = 'pending' AND x.attempts > 0) THEN 2
                        WHEN bool_or(x.status = 'pending') THEN 1
                        WHEN bool_or(x.status IN ('failed', 'cancelled')) THEN 4
                        ELSE 3 END AS rank
              FROM webhook_deliveries x
             WHERE x.account_id = $1 AND x.event_id = d.event_id AND ($9::uuid IS NULL OR x.endpoint_id = $9::uuid)
             GROUP BY x.endpoint_id) e
  ) o`;

/**
 * A delivery's place in the log: its event's time (`event_at`, set by a recovery, which queues
 * events of an outage long after they happened), else when it was queued (the fan-out's rows).
 */
const LISTED_AT = (row: string): string => `coalesce(${row}.event_at, ${row}.created_at)`;

/**
 * The deliveries a page of the log reads, in the list's order from the page's position: a range
 * scan of webhook_deliveries_account_listed_idx. $2 is WEBHOOK_RETENTION_DAYS, $3–$5 the type and
 * time filters (NULL: any), ($6, $7) the position (listed time, delivery id) after which the page
 * starts (NULL: the start of the list), $8 the scan budget: at most that many deliveries are read
 * for one page, so a rare outcome costs a bounded page, not a scan of the whole retention period;
 * $9 the endpoint filter (NULL: any).
 */
const SCAN = (direction: 'older' | 'newer'): string => {
  const [after, order] = direction === 'older' ? ['<', 'DESC'] : ['>', 'ASC'];
  const at = LISTED_AT('w');
  return `
    FROM webhook_deliveries w
   WHERE w.account_id = $1
     AND ${at} >= now() - make_interval(days => $2)
     AND ($3::text IS NULL OR w.event_type = $3::text)
     AND ($4::timestamptz IS NULL OR ${at} >= $4::timestamptz)
     AND ($5::timestamptz IS NULL OR ${at} < $5::timestamptz)
     AND ($6::timestamptz IS NULL OR (${at}, w.id) ${after} ($6::timestamptz, $7::uuid))
     AND ($9::uuid IS NULL OR w.endpoint_id = $9::uuid)
   ORDER BY ${at} ${order}, w.id ${order}`;
};

/**
 * A page: each event is listed at its first delivery (smallest listed time, then id; the fan-out
 * creates one per subscribed endpoint in one statement) — with an endpoint filter, at its first
 * delivery to that endpoint — with its outcome; $10 filters on it, $11 is the page size + 1. The rows stream in index order, so a page stops reading once it is full.
 */
const EVENT_PAGE = (direction: 'older' | 'newer'): string => `
  SELECT d.id AS delivery_id, d.event_id, d.event_type, d.created_at, d.created_at::text AS created_at_key, o.outcome, o.endpoints
    FROM (SELECT w.id, w.event_id, w.event_type, ${LISTED_AT('w')} AS created_at ${SCAN(direction)} LIMIT $8) d
    ${EVENT_OUTCOME}
   WHERE d.id = (SELECT f.id FROM webhook_deliveries f WHERE f.account_id = $1 AND f.event_id = d.event_id
                    AND ($9::uuid IS NULL OR f.endpoint_id = $9::uuid) ORDER BY ${LISTED_AT('f')}, f.id LIMIT 1)
     AND ($10::text IS NULL OR o.outcome = $10::text)
   ORDER BY d.created_at ${direction === 'older' ? 'DESC' : 'ASC'}, d.id ${direction === 'older' ? 'DESC' : 'ASC'}
   LIMIT $11`;

/** The last delivery a page's scan read when it used its whole budget (else none): where the next page goes on. */
const SCAN_FRONTIER = (direction: 'older' | 'newer'): string => `
  SELECT w.id, ${LISTED_AT('w')} AS created_at, ${LISTED_AT('w')}::text AS created_at_key ${SCAN(direction)} OFFSET $8 - 1 LIMIT 1`;

/**
 * The panel's webhook event log (spec §6, issue 17): read-only views of the webhooks family's
 * deliveries and attempt log, by event. It writes nothing: a resend goes through the endpoint
 * service (the webhooks group's *.queries.ts own the tables).
 */
export const WEBHOOK_EVENT_LOG_QUERIES = defineQueries({
  owner: 'webhook-event-log',
  tables: [],
  reads: ['webhook_deliveries', 'webhook_attempts', 'webhook_endpoints', 'outbox_events'],
  tenant: {
    /** Newest first: the page after ($6, $7), or the first page. */
    olderEvents: EVENT_PAGE('older'),
    /** Oldest first: the events just newer than ($6, $7) (the "Newer" link), reversed by the caller. */
    newerEvents: EVENT_PAGE('newer'),
    olderScanFrontier: SCAN_FRONTIER('older'),
    newerScanFrontier: SCAN_FRONTIER('newer'),
    eventDeliveries: `
      SELECT d.id, d.endpoint_id, e.url AS endpoint_url, e.enabled AS endpoint_enabled, d.event_type, d.origin, d.status, d.attempts,
             d.recovered, d.created_at, coalesce(d.event_at, d.created_at) AS listed_at, d.completed_at
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.account_id = $1
       WHERE d.account_id = $1 AND d.event_id = $2
       ORDER BY e.url, e.id, d.created_at, d.id`,
    // The bytes sent (or to be sent); an event only skipped (its endpoints were disabled) has none,
    // and shows its outbox envelope while the outbox keeps it.
    eventBody: `
      SELECT body FROM (
        (SELECT body, 0 AS source FROM webhook_deliveries WHERE account_id = $1 AND event_id = $2 AND body IS NOT NULL
          ORDER BY created_at, id LIMIT 1)
        UNION ALL
        SELECT convert_to(envelope::text, 'UTF8'), 1 FROM outbox_events WHERE account_id = $1 AND id = $2
      ) b ORDER BY source LIMIT 1`,
    eventAttempts: `
      SELECT a.id, a.webhook_delivery_id, a.endpoint_id, a.attempt_number, a.attempted_at, a.outcome, a.status_code, a.error, a.duration_ms,
             d.origin, d.recovered, d.status AS delivery_status
        FROM webhook_deliveries d JOIN webhook_attempts a ON a.webhook_delivery_id = d.id
       WHERE d.account_id = $1 AND d.event_id = $2 AND a.account_id = $1
       ORDER BY a.attempted_at, a.id`,
  },
});
