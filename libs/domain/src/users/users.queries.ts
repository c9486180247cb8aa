import { defineQueries } from '@app/database/sql';

/**
 * Users and invitations are read and written through their TypeORM entities
 * (users.repository.ts); the hand-written statements are the invitation e-mail outbox, the lock
 * that serialises invitations of one address, and the demo seed.
 */
export const USER_QUERIES = defineQueries({
  owner: 'users',
  tables: ['users', 'user_invitations', 'invitation_emails'],
  reads: ['accounts'],
  platform: {
    /** Serialises concurrent invitations of one address to one account ($1: the lock key). */
    lockInvitationAddress: `SELECT pg_advisory_xact_lock(hashtext($1))`,
    /** Queued in the invitation's transaction; keyed by the globally unique invitation id. */
    enqueueInvitationEmail: `INSERT INTO invitation_emails (invitation_id, sealed_link) VALUES ($1, $2)`,
    /** Leases the due e-mails of every account (the sender works across tenants). */
    claimDueInvitationEmails: `
      WITH due AS (
        SELECT invitation_id FROM invitation_emails
         WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
           AND ($2::uuid IS NULL OR invitation_id = $2::uuid)
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE invitation_emails e SET attempts = e.attempts + 1, next_attempt_at = now() + make_interval(secs => $3)
          FROM due WHERE e.invitation_id = due.invitation_id
        RETURNING e.invitation_id, e.sealed_link, e.attempts
      )
      SELECT c.*, i.email, i.full_name, i.role, i.expires_at, i.accepted_at, i.revoked_at, a.name AS account_name, a.status AS account_status
        FROM claimed c JOIN user_invitations i ON i.id = c.invitation_id JOIN accounts a ON a.id = i.account_id`,
    markInvitationEmailSent: `UPDATE invitation_emails SET sent_at = now(), sealed_link = NULL, last_error = NULL WHERE invitation_id = $1`,
    retryInvitationEmail: `UPDATE invitation_emails SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3 WHERE invitation_id = $1`,
    giveUpInvitationEmail: `UPDATE invitation_emails SET failed_at = now(), sealed_link = NULL, last_error = $2 WHERE invitation_id = $1`,
    /** A send abandoned at shutdown: due again at once, and the attempt the claim counted is taken back. */
    releaseInvitationEmail: `
      UPDATE invitation_emails SET attempts = greatest(attempts - 1, 0), next_attempt_at = now()
       WHERE invitation_id = $1 AND sent_at IS NULL AND failed_at IS NULL`,
    /** The demo seed: fixed ids, created once. */
    seedDemoUser: `
      INSERT INTO users (id, account_id, email, full_name, locale, role, is_active, is_platform_staff, is_superuser)
      VALUES ($1, $2, $3, $4, 'en', $5, true, $6, false)
      ON CONFLICT DO NOTHING`,
  },
});
