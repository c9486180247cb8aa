import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One share record per shipment (spec §2.3). Only the SHA-256 of the random token is stored, so
 * neither a database reader nor any API response can rebuild the public link. The view limit is
 * a CHECK as well: the counting UPDATE can never push view_count past max_views.
 */
export class ShipmentShares1763770000001 implements MigrationInterface {
  name = 'ShipmentShares1763770000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE shipment_shares (
        shipment_id integer PRIMARY KEY REFERENCES shipments(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        max_views integer NOT NULL CHECK (max_views BETWEEN 1 AND 10000),
        view_count integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (view_count BETWEEN 0 AND max_views)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE shipment_shares`);
  }
}
