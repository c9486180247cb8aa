import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions of the web panel. The browser holds a random session id; only its SHA-256 is stored,
 * so a leaked table does not let anyone sign in. `csrf_token` is the synchronizer token of the
 * panel's forms. A session ends at `expires_at` (absolute) or after a period without requests
 * (`last_seen_at`, idle limit chosen by the panel).
 */
export class PanelSessions1763770100000 implements MigrationInterface {
  name = 'PanelSessions1763770100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE panel_sessions (
        id uuid PRIMARY KEY,
        token_hash bytea NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX panel_sessions_user_idx ON panel_sessions (user_id)`);
    await q.query(`CREATE INDEX panel_sessions_expires_idx ON panel_sessions (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE panel_sessions`);
  }
}
