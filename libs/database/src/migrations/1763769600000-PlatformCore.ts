import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PlatformCore1763769600000 implements MigrationInterface {
  name = 'PlatformCore1763769600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('customer', 'demo', 'internal')),
        status text NOT NULL CHECK (status IN ('active', 'suspended', 'closed')),
        subscription_plan text NOT NULL DEFAULT 'standard',
        subscription_valid_until timestamptz,
        legal_name text, tax_id text, registration_number text,
        contact_name text, contact_email text, contact_phone text, website text,
        address_line1 text, address_line2 text, city text, postal_code text, country text, timezone text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_credentials (
        id uuid PRIMARY KEY,
        client_id text NOT NULL UNIQUE,
        secret_hash text NOT NULL,
        name text NOT NULL,
        scopes text[] NOT NULL,
        owner_account_id uuid REFERENCES accounts(id) ON DELETE SET NULL,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_credential_accounts (
        credential_id uuid NOT NULL REFERENCES api_credentials(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        PRIMARY KEY (credential_id, account_id)
      )`);
    await q.query(`CREATE INDEX api_credential_accounts_account_idx ON api_credential_accounts (account_id)`);
    await q.query(`
      CREATE TABLE idempotency_records (
        credential_id uuid NOT NULL,
        account_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
        response_status int,
        response_body jsonb,
        response_headers jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (credential_id, account_id, idempotency_key)
      )`);
    await q.query(`CREATE INDEX idempotency_records_expires_idx ON idempotency_records (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_records`);
    await q.query(`DROP TABLE api_credential_accounts`);
    await q.query(`DROP TABLE api_credentials`);
    await q.query(`DROP TABLE accounts`);
  }
}
