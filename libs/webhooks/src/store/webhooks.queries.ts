import { defineQueries } from '@app/database/sql';
import { WEBHOOK_DELIVERIES_CHANNEL } from '../delivery-records';
import { LATENCY_BUCKET_BOUNDS_MS } from '../health';

/** The columns of an endpoint that the panel and the CLI show (never the secret). */
const ENDPOINT_COLUMNS = `id, account_id, url, events, description, enabled, consecutive_failures, disabled_at,
  disabled_reason, secret_rotated_at, signature_format, previous_secret_expires_at, created_at, updated_at`;

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

/** A version 7 UUID made in SQL (time-ordered like newId()), for rows a set-based INSERT … SELECT creates. */
const UUID_V7 = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
         placing substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;

export const WEBHOOK_QUERIES = defineQueries({
  owner: 'webhooks',
  tables: ['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts', 'webhook_endpoint_hourly_stats', 'webhook_claim_owners'],
  reads: ['accounts', 'outbox_events'],
  // The dispatcher's per-batch statements of a fixed shape: parsed and planned once per connection.
  // Not the claim: its best plan depends on the busy lists and limits it is given.
  prepared: ['subscribedEndpoints', 'fanOutDeliveries', 'recordSuccesses', 'trimAttemptLog'],
  tenant: {
    // Endpoint management (the api's panel, the CLI).
    endpointCount: 'SELECT count(*)::int AS n, bool_or(id = $2) AS resubmitted FROM webhook_endpoints WHERE account_id = $1',
    insertEndpoint: `
      INSERT INTO webhook_endpoints (account_id, id, url, events, description, secret_ciphertext, signature_format)
      VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING ${ENDPOINT_COLUMNS}`,
    // Creation order by the timestamp: panel-created endpoints have name-based ids (recordIdFor), not time-ordered ones.
    listEndpoints: `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`,
    findEndpoint: `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND id = $2`,
    updateEndpoint: `
      UPDATE webhook_endpoints SET url = $3, events = $4, description = $5, signature_format = $6, updated_at = now()
       WHERE account_id = $1 AND id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
    // The replaced secret keeps signing (a second webhook-signature entry) for $4 seconds.
    rotateEndpointSecret: `
      UPDATE webhook_endpoints
         SET previous_secret_ciphertext = secret_ciphertext, previous_secret_expires_at = now() + make_interval(secs => $4::double precision),
             secret_ciphertext = $3, secret_rotated_at = now(), updated_at = now()
       WHERE account_id = $1 AND id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
    enableEndpoint: `
      UPDATE webhook_endpoints
         SET enabled = true, consecutive_failures = 0, disabled_at = NULL, disabled_reason = NULL, updated_at = now()
       WHERE account_id = $1 AND id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
    disableEndpoint: `
      UPDATE webhook_endpoints SET enabled = false, disabled_at = now(), disabled_reason = $3, updated_at = now()
       WHERE account_id = $1 AND id = $2 AND enabled RETURNING ${ENDPOINT_COLUMNS}`,
    deleteEndpoint: 'DELETE FROM webhook_endpoints WHERE account_id = $1 AND id = $2',
    listAttempts: `
      SELECT id, webhook_delivery_id, event_id, event_type, attempt_number, attempted_at, outcome, status_code, error, duration_ms
        FROM webhook_attempts WHERE account_id = $1 AND endpoint_id = $2
       ORDER BY attempted_at DESC, id DESC LIMIT $3`,
    // Delivery health (issue 17): one endpoint's hours since $3; every endpoint's totals since $2.
    endpointHourlyStats: `
      SELECT hour, succeeded, failed, latency_buckets, max_duration_ms FROM webhook_endpoint_hourly_stats
       WHERE account_id = $1 AND endpoint_id = $2 AND hour >= $3 ORDER BY hour`,
    endpointSuccessTotals: `
      SELECT endpoint_id, sum(succeeded)::int AS succeeded, sum(failed)::int AS failed FROM webhook_endpoint_hourly_stats
       WHERE account_id = $1 AND hour >= $2 GROUP BY endpoint_id`,
    sentEventBody: `
      SELECT event_type, body FROM webhook_deliveries WHERE account_id = $1 AND event_id = $2
       ORDER BY (body IS NOT NULL) DESC, (endpoint_id = $3) DESC, created_at LIMIT 1`,
    // Deliveries queued by hand (test, resend), and cancelled when their endpoint is disabled.
    insertDelivery: `
      INSERT INTO webhook_deliveries (account_id, id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', now())`,
    cancelPendingDeliveries: `
      UPDATE webhook_deliveries
         SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL, completed_at = now(), updated_at = now()
       WHERE account_id = $1 AND endpoint_id = $2 AND status = 'pending'`,

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
    // envelope; an event with neither (past the retention period) is skipped.
    recoverDeliveries: `
      INSERT INTO webhook_deliveries (account_id, id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
      SELECT $1, ${UUID_V7}, $2, c.event_id, c.event_type, c.origin, c.body, 'pending', now()
        FROM (
          WITH endpoint AS (
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
          ),
          chosen AS (
            SELECT c.event_id, c.event_type, c.origin FROM candidates c
             WHERE EXISTS (SELECT 1 FROM outbox_events o WHERE o.id = c.event_id AND o.account_id = $1)
                OR EXISTS (SELECT 1 FROM webhook_deliveries b WHERE b.account_id = $1 AND b.event_id = c.event_id AND b.body IS NOT NULL)
             ORDER BY c.at, c.event_id
             LIMIT $4
          )
          SELECT c.event_id, c.event_type, c.origin, coalesce(sent.body, convert_to(o.envelope::text, 'UTF8')) AS body
            FROM chosen c
            LEFT JOIN LATERAL (
              SELECT b.body FROM webhook_deliveries b
               WHERE b.account_id = $1 AND b.event_id = c.event_id AND b.body IS NOT NULL
               ORDER BY (b.endpoint_id = $2) DESC, b.created_at LIMIT 1
            ) sent ON true
            LEFT JOIN outbox_events o ON sent.body IS NULL AND o.id = c.event_id AND o.account_id = $1
        ) c
      ON CONFLICT (event_id, endpoint_id) WHERE origin = 'event' DO NOTHING`,
  },
  platform: {
    // Registration checks the account (accounts has no account_id: it is the tenant itself).
    accountExists: 'SELECT 1 FROM accounts WHERE id = $1',
    // Serialises one account's registrations (NO KEY UPDATE: foreign-key checks elsewhere are not blocked).
    lockAccountForRegistration: 'SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE',
    // Ops tooling (the CLI) addresses an endpoint by its globally unique id alone.
    accountOfEndpoint: 'SELECT account_id FROM webhook_endpoints WHERE id = $1',
    notifyDeliveryWorkers: `SELECT pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '')`,

    // The dispatcher: fan-out of published events over every account of a batch.
    subscribedEndpoints: 'SELECT id, account_id, events FROM webhook_endpoints WHERE account_id = ANY($1::uuid[]) AND enabled',
    fanOutDeliveries: `
      WITH created AS (
        INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
        SELECT d.id, ($1::uuid[])[d.event], d.endpoint_id, ($2::uuid[])[d.event], ($3::text[])[d.event], 'event', ($4::bytea[])[d.event], 'pending', now()
          FROM unnest($5::uuid[], $6::uuid[], $7::int[]) AS d(id, endpoint_id, event)
        ON CONFLICT (event_id, endpoint_id) WHERE origin = 'event' DO NOTHING
        RETURNING id
      )
      SELECT count(*)::int AS created, CASE WHEN count(*) > 0 THEN pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '') END AS notified FROM created`,
    // Serialises the claims of every dispatcher replica (one short statement each), so that a
    // claim sees the accounts another has just taken (webhook_claim_owners).
    lockClaims: `SELECT pg_advisory_xact_lock(hashtext('webhook-delivery-claims'))`,
    claimDueDeliveries: `
      WITH RECURSIVE pending_endpoints AS (
        -- endpoints with pending deliveries, one index probe each (a "loose index scan"), so the
        -- claim costs what is pending, not how many endpoints exist
        (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
        UNION ALL
        SELECT (SELECT wd.endpoint_id FROM webhook_deliveries wd
                 WHERE wd.status = 'pending' AND wd.endpoint_id > p.endpoint_id ORDER BY wd.endpoint_id LIMIT 1)
          FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
      ),
      busy AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS b(endpoint_id, in_flight)),
      busy_accounts AS (SELECT * FROM unnest($6::uuid[], $7::int[]) AS b(account_id, in_flight)),
      per_endpoint AS (
        SELECT d.id, d.next_attempt_at, e.account_id
          FROM pending_endpoints p
          JOIN webhook_endpoints e ON e.id = p.endpoint_id AND e.enabled
          LEFT JOIN busy b ON b.endpoint_id = e.id
          CROSS JOIN LATERAL (
            SELECT wd.id, wd.next_attempt_at FROM webhook_deliveries wd
             WHERE wd.endpoint_id = e.id AND wd.status = 'pending' AND wd.next_attempt_at <= now()
               AND (wd.lease_until IS NULL OR wd.lease_until <= now())
             ORDER BY wd.next_attempt_at
             LIMIT greatest($3 - coalesce(b.in_flight, 0), 0)
          ) d
      ),
      taken AS (
        -- one dispatcher at a time serves an account: none while another process owns it (holds
        -- claims of it; an owner that died is ignored once its claims' lease has run out), so the
        -- bounds each process enforces on its own attempts are the fleet's bounds
        SELECT account_id FROM webhook_claim_owners WHERE worker_id <> $9::uuid AND until > now()
      ),
      ranked AS (
        SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY c.account_id ORDER BY c.next_attempt_at) AS nth,
               coalesce(ba.in_flight, 0) AS account_claimed, $8 - coalesce(ba.in_flight, 0) AS account_room
          FROM per_endpoint c LEFT JOIN busy_accounts ba ON ba.account_id = c.account_id
         WHERE NOT EXISTS (SELECT 1 FROM taken t WHERE t.account_id = c.account_id)
      ),
      candidates AS (
        -- max-min fair among the accounts with due work: each account's next delivery ranks by what
        -- the account would then hold (already claimed + its rank), so the limit goes round the
        -- accounts, least served first, instead of to whoever has the oldest backlog
        SELECT id, next_attempt_at FROM ranked WHERE nth <= account_room
         ORDER BY account_claimed + nth, next_attempt_at
         LIMIT $4
      ),
      claimed AS (
        SELECT wd.id FROM webhook_deliveries wd
         WHERE wd.id IN (SELECT id FROM candidates) AND wd.status = 'pending' AND wd.next_attempt_at <= now()
           AND (wd.lease_until IS NULL OR wd.lease_until <= now())
         FOR UPDATE SKIP LOCKED
      ),
      leased AS (
        -- the lease is a column outside every index: a HOT update
        UPDATE webhook_deliveries w
           SET lease_until = now() + make_interval(secs => $5::double precision / 1000)
          FROM claimed c, webhook_endpoints e
         WHERE w.id = c.id AND e.id = w.endpoint_id
        RETURNING w.id, w.account_id, w.endpoint_id, w.event_id, w.event_type, w.body, w.attempts, e.url, e.secret_ciphertext,
                  e.signature_format, CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_ciphertext END AS previous_secret_ciphertext
      ),
      owned AS (
        -- this process now owns the accounts it claimed, for as long as the claims' lease
        INSERT INTO webhook_claim_owners (account_id, worker_id, until)
        SELECT DISTINCT account_id, $9::uuid, now() + make_interval(secs => $5::double precision / 1000) FROM leased
        ON CONFLICT (account_id) DO UPDATE SET worker_id = excluded.worker_id, until = excluded.until
      )
      SELECT * FROM leased`,
    // A dispatcher process gives up the accounts of which it holds nothing any more (and all of them when it stops).
    releaseAccounts: 'DELETE FROM webhook_claim_owners WHERE worker_id = $1 AND account_id = ANY($2::uuid[])',
    releaseClaims: `
      UPDATE webhook_deliveries d
         SET lease_until = CASE WHEN $3::double precision > 0 THEN now() + make_interval(secs => $3::double precision / 1000) END
        FROM unnest($1::uuid[], $2::int[]) AS r(id, attempts)
       WHERE d.id = r.id AND d.status = 'pending' AND d.attempts = r.attempts`,
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
         WHERE d.id = i.delivery_id AND d.status = 'pending' AND d.attempts = i.attempts
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
