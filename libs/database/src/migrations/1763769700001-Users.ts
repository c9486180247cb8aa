import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users (customer users, platform staff, superusers) and invitations. E-mail addresses are unique
 * across the platform, case-insensitively. Invitation tokens are stored only as SHA-256 hashes.
 */
export class Users1763769700001 implements MigrationInterface {
  name = 'Users1763769700001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
        email text NOT NULL,
        full_name text NOT NULL,
        phone text,
        locale text,
        role text CHECK (role IN ('COMPANY_ADMIN', 'MANAGER', 'OPERATOR', 'VIEWER')),
        is_active boolean NOT NULL DEFAULT true,
        is_platform_staff boolean NOT NULL DEFAULT false,
        is_superuser boolean NOT NULL DEFAULT false,
        password_hash text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deactivated_at timestamptz,
        CHECK (is_platform_staff OR is_superuser OR (account_id IS NOT NULL AND role IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (lower(email))`);
    await q.query(`CREATE INDEX users_account_idx ON users (account_id, id)`);
    await q.query(`
      CREATE TABLE user_invitations (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        email text NOT NULL,
        full_name text NOT NULL,
        role text NOT NULL CHECK (role IN ('MANAGER', 'OPERATOR', 'VIEWER')),
        token_hash text NOT NULL UNIQUE,
        created_by_credential_id uuid REFERENCES api_credentials(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX user_invitations_account_idx ON user_invitations (account_id, id)`);
    await q.query(`CREATE INDEX user_invitations_email_idx ON user_invitations (account_id, lower(email))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE user_invitations`);
    await q.query(`DROP TABLE users`);
  }
}
