import { defineQueries } from '@app/database/sql';

export const IDEMPOTENCY_QUERIES = defineQueries({
  owner: 'idempotency',
  tables: ['idempotency_records'],
  tenant: {
    // Expired or abandoned records are replaced atomically by the upsert's WHERE clause.
    claim: `
      INSERT INTO idempotency_records (account_id, credential_id, idempotency_key, request_hash, state, created_at, expires_at)
      VALUES ($1, $2, $3, $4, 'in_progress', now(), now() + make_interval(hours => $5))
      ON CONFLICT (credential_id, account_id, idempotency_key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, state = 'in_progress', response_status = NULL,
             response_body = NULL, response_headers = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE idempotency_records.expires_at < now()
          OR (idempotency_records.state = 'in_progress'
              AND idempotency_records.created_at < now() - make_interval(secs => $6))
      RETURNING 1`,
    find: `
      SELECT request_hash, state, response_status, response_body, response_headers FROM idempotency_records
       WHERE account_id = $1 AND credential_id = $2 AND idempotency_key = $3`,
    complete: `
      UPDATE idempotency_records SET state = 'completed', response_status = $4, response_body = $5::jsonb, response_headers = $6::jsonb
       WHERE account_id = $1 AND credential_id = $2 AND idempotency_key = $3`,
    release: `DELETE FROM idempotency_records WHERE account_id = $1 AND credential_id = $2 AND idempotency_key = $3 AND state = 'in_progress'`,
  },
  platform: {
    purgeExpired: `DELETE FROM idempotency_records WHERE expires_at < now() RETURNING 1`,
  },
});
