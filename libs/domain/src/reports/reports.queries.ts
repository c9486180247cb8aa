import { defineQueries } from '@app/database/sql';
import { TRACKED_POINT_COLUMNS as POINT_COLUMNS, TRACKED_POINTS } from '../shipments/tracked-points.queries';

/** The columns of a `ReportRow`. */
export const REPORT_ROW_COLUMNS = 'id, account_id, subject_type, shipment_id, device_id, name, content_type, size_bytes, sha256, period_from, period_to, generated_at';

export const REPORTS_QUERIES = defineQueries({
  owner: 'reports',
  tables: ['reports', 'report_files'],
  reads: ['accounts', 'alarms', 'device_lifecycles', 'devices', 'shipment_devices', 'telemetry_points'],
  tenant: {
    insertReport: `
      INSERT INTO reports (account_id, id, subject_type, shipment_id, device_id, name, content_type, size_bytes, sha256, period_from, period_to, generated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    /** The bytes of a report of the account (inserted right after its metadata). */
    insertReportFile: `
      INSERT INTO report_files (report_id, content)
      SELECT r.id, $3 FROM reports r WHERE r.account_id = $1 AND r.id = $2`,
    reportOfAccount: `SELECT ${REPORT_ROW_COLUMNS} FROM reports WHERE account_id = $1 AND id = $2`,
    /** Newest first; $2 the limit; optional filters $3 subject_type, $4 shipment, $5 device, $6 id below (keyset). */
    reportsOfAccount: `
      SELECT ${REPORT_ROW_COLUMNS} FROM reports
       WHERE account_id = $1
         AND ($3::text IS NULL OR subject_type = $3::text)
         AND ($4::int IS NULL OR shipment_id = $4::int)
         AND ($5::uuid IS NULL OR device_id = $5::uuid)
         AND ($6::uuid IS NULL OR id < $6::uuid)
       ORDER BY id DESC LIMIT $2`,
    reportsByIds: `SELECT ${REPORT_ROW_COLUMNS} FROM reports WHERE account_id = $1 AND id = ANY($2::uuid[]) ORDER BY content_type`,
    /** Bytes [$3, $3 + $4) (1-based) of a stored file: only the TOAST chunks of the range are read. */
    reportFileChunk: `
      SELECT substring(f.content FROM $3::int FOR $4::int) AS chunk
        FROM report_files f JOIN reports r ON r.id = f.report_id
       WHERE r.account_id = $1 AND f.report_id = $2`,
    shipmentHasReport: `SELECT 1 FROM reports WHERE account_id = $1 AND shipment_id = $2 LIMIT 1`,
    shipmentAttachments: `
      SELECT sd.device_id, d.serial_number, l.label, l.thresholds, l.alert_preset_id, sd.attached_at, sd.detached_at
        FROM shipment_devices sd
        JOIN devices d ON d.id = sd.device_id
        JOIN device_lifecycles l ON l.id = sd.lifecycle_id AND l.account_id = sd.account_id
       WHERE sd.account_id = $1 AND sd.shipment_id = $2
       ORDER BY sd.attached_at, sd.id`,
    /**
     * A keyset page ($4, $5: the last point of the previous page; $6 the page size) of the points
     * tracked by a shipment (see shipments/tracked-points): each attached device's points while it
     * was attached, in the lifecycle it travelled in, open attachments ending at $3.
     */
    shipmentPointsPage: `
      SELECT * FROM (${TRACKED_POINTS}) p
       WHERE $7::timestamptz IS NULL OR (p.recorded_at, p.device_id) > ($7::timestamptz, $8::uuid)
       ORDER BY p.recorded_at, p.device_id
       LIMIT $9`,
    shipmentAlarms: `
      SELECT COALESCE(a.triggered_at, a.created_at) AS at, d.serial_number, a.type, a.severity, a.message, a.resolved_at
        FROM alarms a JOIN devices d ON d.id = a.device_id
       WHERE a.account_id = $1 AND a.shipment_id = $2 ORDER BY 1, a.id`,
    lifecycleAlarms: `
      SELECT COALESCE(triggered_at, created_at) AS at, type, severity, message, resolved_at FROM alarms
       WHERE account_id = $1 AND lifecycle_id = $2 AND COALESCE(triggered_at, created_at) >= $3 AND COALESCE(triggered_at, created_at) < $4 ORDER BY 1, id`,
  },
  platform: {
    /** The operator's device report: the approved device and its current owner (whoever that is). */
    ownedDevice: `
      SELECT d.id AS device_id, d.serial_number, l.id AS lifecycle_id, l.account_id, a.name AS account_name, l.started_at, l.label, l.thresholds, l.alert_preset_id
        FROM devices d
        JOIN device_lifecycles l ON l.device_id = d.id AND l.ended_at IS NULL
        JOIN accounts a ON a.id = l.account_id
       WHERE d.id = $1 AND d.approval_status = 'approved' AND d.deleted_at IS NULL`,
    /** A keyset page ($5, $6: the last point of the previous page; $7 the page size) of a lifecycle's points in [$3, $4). */
    lifecyclePointsPage: `
      SELECT * FROM (
        SELECT ${POINT_COLUMNS}
          FROM telemetry_points t WHERE t.device_id = $1 AND t.lifecycle_id = $2 AND t.recorded_at >= $3 AND t.recorded_at < $4) p
       WHERE $5::timestamptz IS NULL OR (p.recorded_at, p.device_id) > ($5::timestamptz, $6::uuid)
       ORDER BY p.recorded_at, p.device_id
       LIMIT $7`,
  },
  // The list and the stored bytes (immutable once written; a chunk the replica lacks is read on the primary).
  replica: ['reportsOfAccount', 'reportFileChunk'],
});
