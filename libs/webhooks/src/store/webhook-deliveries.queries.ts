import { defineQueries } from '@app/database/sql';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../delivery-records';
import { LATENCY_BUCKET_BOUNDS_MS } from '../health';

/**
 * The CTE that adds logged attempts to the hourly health rollup (issue 17), appended to the
 * statement that logs them, so recording an attempt costs no extra statement or round trip.
 * `source` is a CTE with account_id, endpoint_id, attempted_at, outcome and duration_ms (the
 * attempt insert's RETURNING). Rows are aggregated per endpoint and hour first (ON CONFLICT may
 * touch a row once per statement) and upserted in key order, so concurrent batches lock rollup
 * rows in the same order. `after` names a CTE that must finish first (the success batch's
 * endpoint locks: a failure locks its endpoint before its rollup row, so a batch must too).
 */
function hourlyStatsUpsert(source: string, after?: string): string {
  const buckets = Array.from({ length: LATENCY_BUCKET_BOUNDS_MS.length + 1 }, (_, k) => `count(*) FILTER (WHERE bucket = ${k})`).join(',\n                     ');
  return `stats AS (
        INSERT INTO webhook_endpoint_hourly_stats (endpoint_id, hour, account_id, succeeded, failed, latency_buckets, max_duration_ms)
        SELECT endpoint_id, hour, account_id, count(*) FILTER (WHERE outcome = 'succeeded'), count(*) FILTER (WHERE outcome <> 'succeeded'),
               ARRAY[${buckets}]::int[], max(duration_ms)
          FROM (SELECT account_id, endpoint_id, date_trunc('hour', attempted_at, 'UTC') AS hour, outcome, duration_ms,
                       width_bucket(duration_ms, ARRAY[${LATENCY_BUCKET_BOUNDS_MS.join(', ')}]) AS bucket
                  FROM ${source}${after ? ` WHERE (SELECT count(*) FROM ${after}) >= 0` : ''}) a
         GROUP BY endpoint_id, hour, account_id
         ORDER BY endpoint_id, hour
        ON CONFLICT (endpoint_id, hour) DO UPDATE
           SET succeeded = webhook_endpoint_hourly_stats.succeeded + excluded.succeeded,
               failed = webhook_endpoint_hourly_stats.failed + excluded.failed,
               latency_buckets = ARRAY(SELECT old + new FROM unnest(webhook_endpoint_hourly_stats.latency_buckets, excluded.latency_buckets)
                                         WITH ORDINALITY AS b(old, new, n) ORDER BY n),
               max_duration_ms = greatest(webhook_endpoint_hourly_stats.max_duration_ms, excluded.max_duration_ms)
      )`;
}

/** Deliveries: queued by hand or fanned out, claimed, and their outcomes logged (the dispatcher; webhook-deliveries.repository.ts). */
export const WEBHOOK_DELIVERY_QUERIES = defineQueries({
  owner: 'webhook-deliveries',
  group: 'webhooks',
  tables: ['webhook_deliveries', 'webhook_attempts', 'webhook_endpoint_hourly_stats', 'webhook_dispatchers', 'webhook_slot_grants'],
  reads: ['webhook_endpoints'],
  // The dispatcher's per-batch statements of a fixed shape: parsed and planned once per connection.
  prepared: ['fanOutDeliveries', 'claimDueDeliveries', 'recordSuccesses', 'trimAttemptLog'],
  tenant: {
    // Deliveries queued by hand (test, resend), and cancelled when their endpoint is disabled (the
    // due index leads with the endpoint's place in the claims' ring, migration WebhookClaimRing).
    insertDelivery: `
      INSERT INTO webhook_deliveries (account_id, id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', now())`,
    cancelPendingDeliveries: `
      UPDATE webhook_deliveries
         SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL, completed_at = now(), updated_at = now()
       WHERE account_id = $1 AND uuid_hash(endpoint_id) = uuid_hash($2::uuid) AND endpoint_id = $2 AND status = 'pending'`,
  },
  platform: {
    notifyDeliveryWorkers: `SELECT pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '')`,

    // The dispatcher's fan-out of a batch of published events ($1–$4: account, id, type, body of
    // each), in one statement: one delivery per endpoint of the event's account subscribed to its
    // type. Disabled endpoints too: the row is `skipped` (not sent), closed at once, no body (a
    // recovery takes the bytes from another delivery or the outbox); the event log lists it at its
    // time and a recovery queues it like any delivery that did not succeed. Only pending rows wake
    // workers; the NOTIFY's payload ($5) names the dispatcher that fanned out, which wakes its own
    // worker directly and ignores it. Ids are made by uuid_v7() (time-ordered, as the service's own).
    fanOutDeliveries: `
      WITH event AS (
        SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bytea[]) AS e(account_id, event_id, event_type, body)
      ),
      created AS (
        INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at, completed_at)
        SELECT uuid_v7(), e.account_id, w.id, e.event_id, e.event_type, 'event',
               CASE WHEN w.enabled THEN e.body END,
               CASE WHEN w.enabled THEN 'pending' ELSE 'skipped' END,
               CASE WHEN w.enabled THEN now() END,
               CASE WHEN NOT w.enabled THEN now() END
          FROM event e
          JOIN webhook_endpoints w ON w.account_id = e.account_id AND e.event_type = ANY (w.events)
        ON CONFLICT (event_id, endpoint_id) WHERE origin = 'event' DO NOTHING
        RETURNING status
      ),
      queued AS (SELECT count(*)::int AS n FROM created WHERE status = 'pending')
      SELECT n AS created, CASE WHEN n > 0 THEN pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', $5::text) END AS notified FROM queued`,
    // A dispatcher process stops: every grant it holds is given up at once.
    retireDispatcher: 'DELETE FROM webhook_dispatchers WHERE worker_id = $1',
    // The claim, in one round trip (migration WebhookClaimFunction): serialised with every other
    // dispatcher's, renews this process ($1) as a live dispatcher, leases due deliveries within the
    // fleet's bounds, and writes this process's slot grants (webhook_dispatchers, webhook_slot_grants,
    // webhook_deliveries). The statement inside is planned once per connection by PL/pgSQL.
    claimDueDeliveries: 'SELECT * FROM webhook_claim_deliveries($1, $2, $3, $4, $5, $6, $7, $8::uuid[], $9::int[], $10::uuid[], $11::int[], $12::int, $13::uuid, $14::int)',
    // Batches of deliveries by id say "still pending" as \`next_attempt_at IS NOT NULL\` (the same,
    // by webhook_deliveries_schedule_check): \`status = 'pending'\` matches the partial due index,
    // and a generic plan made while few were pending scans every due delivery through it instead of
    // looking the batch up by key (migration WebhookClaimByKey).
    releaseClaims: `
      UPDATE webhook_deliveries d
         SET lease_until = CASE WHEN $3::double precision > 0 THEN now() + make_interval(secs => $3::double precision / 1000) END
        FROM unnest($1::uuid[], $2::int[]) AS r(id, attempts)
       WHERE d.id = r.id AND d.next_attempt_at IS NOT NULL AND d.attempts = r.attempts`,
    recordSuccesses: `
      WITH input AS (
        SELECT * FROM unnest($1::uuid[], $2::int[], $3::uuid[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[],
                             $8::timestamptz[], $9::int[], $10::text[], $11::int[])
          AS i(delivery_id, attempts, attempt_id, account_id, endpoint_id, event_id, event_type, attempted_at, status_code, error, duration_ms)
      ), endpoint AS (
        UPDATE webhook_endpoints SET consecutive_failures = 0
         WHERE id IN (SELECT id FROM webhook_endpoints
                       WHERE id IN (SELECT endpoint_id FROM input) AND consecutive_failures <> 0
                       ORDER BY id FOR UPDATE)
        RETURNING id
      ), delivery AS (
        UPDATE webhook_deliveries d
           SET attempts = d.attempts + 1, last_attempt_at = i.attempted_at, last_status_code = i.status_code, last_error = i.error,
               status = 'succeeded', next_attempt_at = NULL, lease_until = NULL, completed_at = now(), updated_at = now()
          FROM input i
         WHERE d.id = i.delivery_id AND d.next_attempt_at IS NOT NULL AND d.attempts = i.attempts
        RETURNING d.id
      ), attempt AS (
        INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number,
                                      attempted_at, outcome, status_code, error, duration_ms)
        SELECT attempt_id, account_id, endpoint_id, delivery_id, event_id, event_type, attempts + 1,
               attempted_at, 'succeeded', status_code, error, duration_ms
          FROM input
        RETURNING account_id, endpoint_id, attempted_at, outcome, duration_ms
      ), ${hourlyStatsUpsert('attempt', 'endpoint')}
      SELECT id FROM delivery`,
    trimAttemptLog: `
      WITH pruned AS (
        DELETE FROM webhook_attempts a
         USING unnest($1::uuid[]) AS e(endpoint_id)
         CROSS JOIN LATERAL (
           SELECT id FROM webhook_attempts WHERE endpoint_id = e.endpoint_id ORDER BY attempted_at DESC, id DESC OFFSET $2
         ) old
         WHERE a.id = old.id
        RETURNING 1
      )
      SELECT count(*)::int AS pruned FROM pruned`,
    countEndpointFailure: `
      UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1
      RETURNING consecutive_failures, enabled`,
    recordFailedAttempt: `
      UPDATE webhook_deliveries
         SET attempts = attempts + 1, last_attempt_at = $2, last_status_code = $3, last_error = $4,
             status = $5, next_attempt_at = $6, lease_until = NULL, updated_at = now(),
             completed_at = CASE WHEN $5 = 'pending' THEN NULL ELSE now() END
       WHERE id = $1 AND status = 'pending' AND attempts = $7`,
    disableFailingEndpoint: `
      UPDATE webhook_endpoints SET enabled = false, disabled_at = now(), disabled_reason = $2, updated_at = now()
       WHERE id = $1 AND enabled`,
    insertAttempt: `
      WITH attempt AS (
        INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number,
                                      attempted_at, outcome, status_code, error, duration_ms)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        RETURNING account_id, endpoint_id, attempted_at, outcome, duration_ms
      ), ${hourlyStatsUpsert('attempt')}
      SELECT 1`,
    dueBacklog: `
      SELECT count(*) AS due, min(next_attempt_at) AS oldest FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())`,
    disabledEndpointCount: 'SELECT count(*) AS disabled FROM webhook_endpoints WHERE NOT enabled',
  },
});
