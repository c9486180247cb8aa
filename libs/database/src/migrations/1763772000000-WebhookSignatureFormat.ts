import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Standard Webhooks as a per-endpoint opt-in (issue 29):
 *
 * - `signature_format`: `service-v1` (the spec's X-Service-* headers only, the default every
 *   existing endpoint keeps) or `standard-webhooks` (the same headers plus webhook-id,
 *   webhook-timestamp and webhook-signature).
 * - the secret a rotation replaced, encrypted like the current one, and the end of the rotation
 *   window during which it signs too (a second `v1,` entry of webhook-signature). Both or neither.
 *
 * Columns with a constant default and nullable ones: no table rewrite, no long lock.
 */
export class WebhookSignatureFormat1763772000000 implements MigrationInterface {
  name = 'WebhookSignatureFormat1763772000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN signature_format text NOT NULL DEFAULT 'service-v1'
          CONSTRAINT webhook_endpoints_signature_format_check CHECK (signature_format IN ('service-v1', 'standard-webhooks')),
        ADD COLUMN previous_secret_ciphertext text,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD CONSTRAINT webhook_endpoints_previous_secret_check CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL))`);
  }

  /** Endpoints go back to the spec's headers only, and rotation windows end: nothing else depends on these columns. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT webhook_endpoints_previous_secret_check,
        DROP COLUMN previous_secret_expires_at,
        DROP COLUMN previous_secret_ciphertext,
        DROP COLUMN signature_format`);
  }
}
