import { defineQueries } from '@app/database/sql';

/**
 * API credentials. A credential is platform-wide (it may serve several accounts); the panel's
 * `*Owned` statements are scoped to the owning company (`owner_account_id = $1`).
 */
export const CREDENTIAL_QUERIES = defineQueries({
  owner: 'credentials',
  tables: ['api_credentials', 'api_credential_accounts'],
  reads: ['accounts'],
  tenant: {
    listOwned: `
      SELECT c.id, c.client_id, c.name, c.scopes, c.created_at, c.last_used_at, c.revoked_at,
             COALESCE(json_agg(json_build_object('id', a.id, 'name', a.name) ORDER BY a.name, a.id) FILTER (WHERE a.id IS NOT NULL), '[]') AS accounts
        FROM api_credentials c
        LEFT JOIN api_credential_accounts ca ON ca.credential_id = c.id
        LEFT JOIN accounts a ON a.id = ca.account_id
       WHERE c.owner_account_id = $1 AND ($2::uuid IS NULL OR c.id = $2::uuid)
       GROUP BY c.id
       ORDER BY c.created_at DESC, c.id DESC`,
    revokeOwned: `
      WITH target AS (SELECT id, revoked_at FROM api_credentials WHERE owner_account_id = $1 AND id = $2 FOR UPDATE),
           updated AS (UPDATE api_credentials c SET revoked_at = now(), updated_at = now()
                         FROM target WHERE c.id = target.id AND target.revoked_at IS NULL RETURNING c.id)
      SELECT EXISTS (SELECT 1 FROM updated) AS revoked FROM target`,
  },
  platform: {
    /** Per API call (token guard): the credential with the ids of its usable (active customer) accounts. */
    findByClientId: `
      SELECT c.id, c.client_id, c.secret_hash, c.scopes, c.revoked_at IS NOT NULL AS revoked,
             COALESCE(array_agg(a.id ORDER BY a.id) FILTER (WHERE a.id IS NOT NULL), '{}') AS account_ids
        FROM api_credentials c
        LEFT JOIN api_credential_accounts ca ON ca.credential_id = c.id
        LEFT JOIN accounts a ON a.id = ca.account_id AND a.status = 'active' AND a.kind = 'customer'
       WHERE c.client_id = $1
       GROUP BY c.id`,
    touch: `
      UPDATE api_credentials SET last_used_at = now()
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    lockId: `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
    exists: `SELECT 1 FROM api_credentials WHERE id = $1`,
    revoke: `
      UPDATE api_credentials SET revoked_at = now(), updated_at = now()
       WHERE (client_id = $1 OR id::text = $1) AND revoked_at IS NULL RETURNING id`,
    insert: `
      INSERT INTO api_credentials (id, client_id, secret_hash, name, scopes, owner_account_id)
      VALUES ($1, $2, $3, $4, $5, $6)`,
    clearAccounts: `DELETE FROM api_credential_accounts WHERE credential_id = $1`,
    addAccount: `INSERT INTO api_credential_accounts (credential_id, account_id) VALUES ($1, $2)`,
  },
  // The credential check of every call: on the primary, on a caught-up replica while the primary is away.
  failover: ['findByClientId'],
  // Every call runs it: parsed and planned once per connection (a unique-key lookup, one plan for any client id).
  prepared: ['findByClientId'],
});
