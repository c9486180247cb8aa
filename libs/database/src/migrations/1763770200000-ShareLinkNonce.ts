import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The share link becomes derivable, so GET /shipments/{id}/share/ can show it: the link token is
 * HMAC-SHA256(key derived from SECRETS_KEY, shipment, account, link_nonce); a refresh draws a new
 * nonce. The database keeps the nonce and, as before, the token's SHA-256 for the lookup — neither
 * yields a working link without SECRETS_KEY. Shares created before this migration have no nonce:
 * their links keep working until refreshed, and GET shows `url: null` for them.
 */
export class ShareLinkNonce1763770200000 implements MigrationInterface {
  name = 'ShareLinkNonce1763770200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE shipment_shares ADD COLUMN link_nonce bytea`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE shipment_shares DROP COLUMN link_nonce`);
  }
}
