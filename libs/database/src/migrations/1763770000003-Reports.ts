import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated reports: metadata in `reports`, the bytes in `report_files` (bytea). The content
 * column is stored EXTERNAL (out of line, uncompressed): PDFs and CSVs gain little from TOAST
 * compression, and an uncompressed toasted value lets `substring(content FROM n FOR m)` fetch
 * only the TOAST chunks it needs, which is how downloads stream a file without reading it whole.
 *
 * `shipment_report_jobs` is the to-do list of completed shipments whose report is not generated
 * yet: the completing transaction inserts the job (so a completion by the API or by a geofence
 * always gets its report, even if the process dies right after commit), and a worker takes jobs
 * with FOR UPDATE SKIP LOCKED.
 */
export class Reports1763770000003 implements MigrationInterface {
  name = 'Reports1763770000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE reports (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        subject_type text NOT NULL CHECK (subject_type IN ('device', 'shipment')),
        shipment_id integer REFERENCES shipments(id) ON DELETE CASCADE,
        device_id uuid REFERENCES devices(id) ON DELETE CASCADE,
        name text NOT NULL,
        content_type text NOT NULL,
        size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
        sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        period_from timestamptz NOT NULL,
        period_to timestamptz NOT NULL,
        generated_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((subject_type = 'shipment') = (shipment_id IS NOT NULL)),
        CHECK ((subject_type = 'device') = (device_id IS NOT NULL)),
        CHECK (period_to >= period_from)
      )`);
    await q.query(`CREATE INDEX reports_account_idx ON reports (account_id, id)`);
    await q.query(`CREATE INDEX reports_shipment_idx ON reports (shipment_id) WHERE shipment_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE report_files (
        report_id uuid PRIMARY KEY REFERENCES reports(id) ON DELETE CASCADE,
        content bytea NOT NULL
      )`);
    await q.query(`ALTER TABLE report_files ALTER COLUMN content SET STORAGE EXTERNAL`);
    await q.query(`
      CREATE TABLE shipment_report_jobs (
        shipment_id integer PRIMARY KEY REFERENCES shipments(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX shipment_report_jobs_due_idx ON shipment_report_jobs (next_attempt_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE shipment_report_jobs`);
    await q.query(`DROP TABLE report_files`);
    await q.query(`DROP TABLE reports`);
  }
}
