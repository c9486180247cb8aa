import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The invitation e-mail outbox: the row is written in the invitation's transaction and the
 * message is sent after commit, with retries, so no SMTP wait ever holds a database transaction.
 * `sealed_link` is the link's token under AES-256-GCM with SECRETS_KEY (the invitation id is the
 * authenticated data): the database alone never yields a working link, and the column is cleared
 * as soon as the message is sent or given up.
 */
export class InvitationEmails1763771000000 implements MigrationInterface {
  name = 'InvitationEmails1763771000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE invitation_emails (
        invitation_id uuid PRIMARY KEY REFERENCES user_invitations (id) ON DELETE CASCADE,
        sealed_link text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        failed_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX invitation_emails_due ON invitation_emails (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE invitation_emails`);
  }
}
