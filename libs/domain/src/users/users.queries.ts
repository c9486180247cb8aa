import { defineQueries } from '@app/database/sql';

/** The columns of a user, named as the User entity's properties. */
const USER_COLUMNS = `id, account_id AS "accountId", email, full_name AS "fullName", phone, locale, role, is_active AS "isActive",
  is_platform_staff AS "isPlatformStaff", is_superuser AS "isSuperuser", password_hash AS "passwordHash",
  deactivated_at AS "deactivatedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The columns of an invitation, named as the UserInvitation entity's properties. */
const INVITATION_COLUMNS = `id, account_id AS "accountId", email, full_name AS "fullName", role, token_hash AS "tokenHash",
  created_by_credential_id AS "createdByCredentialId", expires_at AS "expiresAt", accepted_at AS "acceptedAt",
  accepted_user_id AS "acceptedUserId", revoked_at AS "revokedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Customer users only: platform staff and superusers share the table but are never addressed here. */
const CUSTOMER = 'NOT is_platform_staff AND NOT is_superuser';

/**
 * Users, invitations and the invitation e-mail outbox. E-mail addresses are unique across the
 * platform (case-insensitively), and an invitation link names its invitation by the token's hash,
 * so those lookups are the platform's; everything else is the account's.
 */
export const USER_QUERIES = defineQueries({
  owner: 'users',
  tables: ['users', 'user_invitations', 'invitation_emails'],
  reads: ['accounts'],
  tenant: {
    // The account's customer users after $2 (keyset; null: from the start) in id order, at most $3.
    listCustomerUsers: `
      SELECT ${USER_COLUMNS} FROM users
       WHERE account_id = $1 AND ${CUSTOMER} AND ($2::uuid IS NULL OR id > $2::uuid)
       ORDER BY id LIMIT $3`,
    findCustomerUser: `SELECT ${USER_COLUMNS} FROM users WHERE account_id = $1 AND id = $2 AND ${CUSTOMER}`,
    findCustomerUserForUpdate: `SELECT ${USER_COLUMNS} FROM users WHERE account_id = $1 AND id = $2 AND ${CUSTOMER} FOR UPDATE`,
    // updated_at moves only when a value changes (a PATCH that repeats the current values changes nothing).
    updateCustomerUser: `
      UPDATE users
         SET full_name = $3, phone = $4, locale = $5, role = $6,
             updated_at = CASE WHEN (full_name, phone, locale, role) IS DISTINCT FROM ($3::text, $4::text, $5::text, $6::text) THEN now() ELSE updated_at END
       WHERE account_id = $1 AND id = $2 AND ${CUSTOMER}
      RETURNING ${USER_COLUMNS}`,
    deactivateCustomerUser: `
      UPDATE users SET is_active = false, deactivated_at = $3, updated_at = now()
       WHERE account_id = $1 AND id = $2 AND ${CUSTOMER} AND is_active`,
    // An active customer user (the accepted invitation's): $2 id, $3 e-mail, $4 full name, $5 role, $6 password hash.
    insertCustomerUser: `
      INSERT INTO users (account_id, id, email, full_name, role, password_hash, is_active, is_platform_staff, is_superuser)
      VALUES ($1, $2, $3, $4, $5, $6, true, false, false) RETURNING ${USER_COLUMNS}`,
    // The account's invitations that are not revoked, after $2 (keyset; null: from the start) in id order, at most $3.
    listInvitations: `
      SELECT ${INVITATION_COLUMNS} FROM user_invitations
       WHERE account_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id > $2::uuid)
       ORDER BY id LIMIT $3`,
    // $2: the address in lower case.
    pendingInvitationExists: `
      SELECT EXISTS (SELECT 1 FROM user_invitations
        WHERE account_id = $1 AND lower(email) = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()) AS found`,
    findUnrevokedInvitationForUpdate: `SELECT ${INVITATION_COLUMNS} FROM user_invitations WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL FOR UPDATE`,
    insertInvitation: `
      INSERT INTO user_invitations (account_id, id, email, full_name, role, token_hash, created_by_credential_id, created_at, expires_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${INVITATION_COLUMNS}`,
    revokeInvitation: `UPDATE user_invitations SET revoked_at = $3, updated_at = now() WHERE account_id = $1 AND id = $2`,
    acceptInvitation: `UPDATE user_invitations SET accepted_at = $3, accepted_user_id = $4, updated_at = now() WHERE account_id = $1 AND id = $2`,
  },
  platform: {
    /** The user with this address (case-insensitive), in any account or none. */
    findUserByEmail: `SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`,
    emailTaken: `SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1)) AS taken`,
    /** An invitation link names its invitation by the token's hash (globally unique). */
    findInvitationByTokenHash: `SELECT ${INVITATION_COLUMNS} FROM user_invitations WHERE token_hash = $1`,
    findInvitationByTokenHashForUpdate: `SELECT ${INVITATION_COLUMNS} FROM user_invitations WHERE token_hash = $1 FOR UPDATE`,
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
  },
});
