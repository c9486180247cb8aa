import { defineQueries } from '@app/database/sql';

/** The columns of an endpoint that the panel and the CLI show (never the secret). */
const ENDPOINT_COLUMNS = `id, account_id, url, events, description, enabled, consecutive_failures, disabled_at,
  disabled_reason, secret_rotated_at, signature_format, previous_secret_expires_at, created_at, updated_at`;

/** Endpoint management: the api's panel and endpoints, and the CLI (webhook-endpoints.repository.ts). */
export const WEBHOOK_ENDPOINT_QUERIES = defineQueries({
  owner: 'webhook-endpoints',
  group: 'webhooks',
  tables: ['webhook_endpoints'],
  reads: ['accounts', 'webhook_deliveries', 'webhook_attempts', 'webhook_endpoint_hourly_stats'],
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
    // With each attempt, its delivery's origin and where the delivery ended (issue 31 item 2); a
    // delivery pruned meanwhile (no body, no kept attempt) cannot be: kept attempts keep it.
    listAttempts: `
      SELECT a.id, a.webhook_delivery_id, a.event_id, a.event_type, a.attempt_number, a.attempted_at, a.outcome, a.status_code,
             a.error, a.duration_ms, d.origin, d.recovered, d.status AS delivery_status
        FROM webhook_attempts a LEFT JOIN webhook_deliveries d ON d.id = a.webhook_delivery_id AND d.account_id = $1
       WHERE a.account_id = $1 AND a.endpoint_id = $2
       ORDER BY a.attempted_at DESC, a.id DESC LIMIT $3`,
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
  },
  platform: {
    // Serialises one account's registrations (NO KEY UPDATE: foreign-key checks elsewhere are not blocked).
    lockAccountForRegistration: 'SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE',
    // Ops tooling (the CLI) addresses an endpoint by its globally unique id alone.
    accountOfEndpoint: 'SELECT account_id FROM webhook_endpoints WHERE id = $1',
  },
});
