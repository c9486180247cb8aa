import { defineQueries } from '@app/database/sql';
import { PANEL_USER_ALLOWED } from './panel-context';

/** Web panel sessions; looked up by the hash of the session cookie (globally unique), hence platform. */
export const PANEL_SESSION_QUERIES = defineQueries({
  owner: 'panel-sessions',
  tables: ['panel_sessions'],
  reads: ['users', 'accounts', 'webhook_endpoints'],
  platform: {
    /** Sign-in: the user with this e-mail and whether the panel admits them. */
    findSignInCandidate: `
      SELECT u.id, u.account_id, u.password_hash, ${PANEL_USER_ALLOWED} AS allowed
        FROM users u LEFT JOIN accounts a ON a.id = u.account_id
       WHERE lower(u.email) = lower($1)`,
    /** Before a new session: drop expired sessions, and this user's idle ones. */
    pruneForUser: `DELETE FROM panel_sessions WHERE expires_at <= now() OR (user_id = $1 AND last_seen_at <= now() - make_interval(mins => $2))`,
    insert: `
      INSERT INTO panel_sessions (id, token_hash, user_id, account_id, csrf_token, expires_at)
      VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6))`,
    resolve: `
      SELECT s.id, s.csrf_token,
             (s.expires_at <= now() OR s.last_seen_at <= now() - make_interval(mins => $2)) AS expired,
             s.last_seen_at <= now() - make_interval(secs => $3) AS stale,
             (${PANEL_USER_ALLOWED} AND u.account_id = s.account_id) AS allowed,
             u.id AS user_id, u.email, u.full_name, u.role, a.id AS account_id, a.name AS account_name,
             (SELECT count(*)::int FROM webhook_endpoints e WHERE e.account_id = s.account_id AND NOT e.enabled) AS disabled_endpoints
        FROM panel_sessions s
        JOIN users u ON u.id = s.user_id
        JOIN accounts a ON a.id = s.account_id
       WHERE s.token_hash = $1`,
    touch: `UPDATE panel_sessions SET last_seen_at = now() WHERE id = $1`,
    purgeExpired: `DELETE FROM panel_sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(mins => $1)`,
    end: `DELETE FROM panel_sessions WHERE id = $1`,
  },
});
