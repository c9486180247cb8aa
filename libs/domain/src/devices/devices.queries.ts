import { defineQueries } from '@app/database/sql';

/**
 * A device as its current owner sees it. Visible devices are approved, not deleted, and in a
 * lifecycle of the tenant that has not ended; every statement built on it carries that
 * condition, with the account id first.
 */
const VISIBLE_DEVICES = `
  SELECT d.id, d.serial_number, d.model, d.hardware_revision, d.firmware_version,
         l.id AS lifecycle_id, l.started_at AS owned_since, l.label, l.measurement_interval_s, l.transmission_interval_s,
         l.sensors, l.thresholds, l.alert_preset_id, l.last_seen_at, l.battery, l.battery_at, l.latitude, l.longitude, l.location_at
    FROM device_lifecycles l
    JOIN devices d ON d.id = l.device_id
   WHERE l.account_id = $1 AND l.ended_at IS NULL AND d.approval_status = 'approved' AND d.deleted_at IS NULL`;

/** Every lifecycle of the given devices (approved, not deleted), in id order (ingestion). */
const INGEST_LIFECYCLES = `
  SELECT l.id, l.device_id, l.account_id, l.started_at, l.ended_at, l.sensors, l.thresholds, l.alert_preset_id,
         l.latitude, l.longitude, l.location_at
    FROM device_lifecycles l
    JOIN devices d ON d.id = l.device_id
   WHERE l.device_id = ANY($1::uuid[]) AND d.approval_status = 'approved' AND d.deleted_at IS NULL
   ORDER BY l.id`;

export const DEVICE_QUERIES = defineQueries({
  owner: 'devices',
  tables: ['devices', 'device_lifecycles', 'device_maintenance_records'],
  reads: ['alert_presets'],
  tenant: {
    /** A page of the tenant's visible devices, by id, after the keyset position $3 (null: first page). */
    list: `${VISIBLE_DEVICES} AND ($3::uuid IS NULL OR d.id > $3::uuid) ORDER BY d.id LIMIT $2`,
    find: `${VISIBLE_DEVICES} AND d.id = $2`,
    /** The same, locking the lifecycle until the transaction ends (read-modify-write of settings). */
    findForUpdate: `${VISIBLE_DEVICES} AND d.id = $2 FOR NO KEY UPDATE OF l`,
    updateLabel: `UPDATE device_lifecycles SET label = $3, updated_at = now() WHERE account_id = $1 AND id = $2 AND ended_at IS NULL`,
    updateSettings: `
      UPDATE device_lifecycles
         SET measurement_interval_s = $3, transmission_interval_s = $4, sensors = $5::jsonb, thresholds = $6::jsonb,
             alert_preset_id = $7, updated_at = now()
       WHERE account_id = $1 AND id = $2 AND ended_at IS NULL`,
    /**
     * Records of the device's current lifecycle ($3), and platform-side records made between
     * owners (no lifecycle); newest first, after the keyset position ($5, $6; null: first page).
     * Cost columns are never selected.
     */
    maintenance: `
      SELECT m.id, m.device_id, m.kind, m.performed_at, m.performed_at::text AS performed_at_key, m.summary, m.details, m.next_due_at, m.created_at
        FROM device_maintenance_records m
        JOIN device_lifecycles l ON l.id = $3 AND l.account_id = $1 AND l.device_id = m.device_id
       WHERE m.device_id = $2 AND (m.lifecycle_id IS NULL OR m.lifecycle_id = $3)
         AND ($5::timestamptz IS NULL OR (m.performed_at, m.id) < ($5::timestamptz, $6::uuid))
       ORDER BY m.performed_at DESC, m.id DESC
       LIMIT $4`,
    alertPresetExists: `SELECT 1 FROM alert_presets WHERE account_id = $1 AND id = $2`,
    /** First lifecycles of newly registered devices (ids $2, devices $3), owned by $1. */
    insertFirstLifecycles: `
      INSERT INTO device_lifecycles (account_id, id, device_id, started_at)
      SELECT $1, id, device_id, now() FROM unnest($2::uuid[], $3::uuid[]) AS l(id, device_id)`,
    /** The new owner's lifecycle of a transferred device. */
    startLifecycle: `INSERT INTO device_lifecycles (account_id, id, device_id, started_at) VALUES ($1, $2, $3, now())`,
  },
  platform: {
    /** Platform-side registration (operator command line): devices have no tenant of their own. */
    insertDevices: `
      INSERT INTO devices (id, serial_number, model, firmware_version, imei, sim_iccid, firmware_key, approval_status, approved_at)
      SELECT id, serial, $3, '4.2.0', imei, iccid, key, CASE WHEN $4 THEN 'approved' ELSE 'pending' END, CASE WHEN $4 THEN now() END
        FROM unnest($1::uuid[], $2::text[], $5::text[], $6::text[], $7::text[]) AS d(id, serial, imei, iccid, key)`,
    approve: `
      UPDATE devices SET approval_status = 'approved', approved_at = COALESCE(approved_at, now()), updated_at = now()
       WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
    lockDevice: `SELECT id FROM devices WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`,
    /** The device's current lifecycle, whoever owns it (transfer to another account). */
    lockCurrentLifecycle: `SELECT id, account_id FROM device_lifecycles WHERE device_id = $1 AND ended_at IS NULL FOR UPDATE`,
    endLifecycle: `UPDATE device_lifecycles SET ended_at = now(), updated_at = now() WHERE id = $1 RETURNING ended_at`,
    /** Presets given as (account, id) pairs, each only within its own account (ingestion, reports). */
    presetsOfAccounts: `
      SELECT p.id, to_jsonb(p) AS preset
        FROM alert_presets p
        JOIN unnest($1::uuid[], $2::uuid[]) AS wanted(account_id, id) ON wanted.id = p.id AND wanted.account_id = p.account_id`,
    /** Ingestion by device: locked in id order, so that concurrent batches queue instead of deadlocking. */
    lockIngestLifecycles: `${INGEST_LIFECYCLES} FOR NO KEY UPDATE OF l`,
    ingestLifecycles: INGEST_LIFECYCLES,
    /** Moves each lifecycle's status forward only (never back to an older reading). */
    advanceStatus: `
      UPDATE device_lifecycles l SET
          last_seen_at = GREATEST(l.last_seen_at, u.seen_at),
          battery = CASE WHEN u.battery_at IS NOT NULL AND (l.battery_at IS NULL OR u.battery_at > l.battery_at) THEN u.battery ELSE l.battery END,
          battery_at = GREATEST(l.battery_at, u.battery_at),
          latitude = CASE WHEN u.location_at IS NOT NULL AND (l.location_at IS NULL OR u.location_at > l.location_at) THEN u.latitude ELSE l.latitude END,
          longitude = CASE WHEN u.location_at IS NOT NULL AND (l.location_at IS NULL OR u.location_at > l.location_at) THEN u.longitude ELSE l.longitude END,
          location_at = GREATEST(l.location_at, u.location_at)
         FROM unnest($1::uuid[], $2::timestamptz[], $3::real[], $4::timestamptz[], $5::float8[], $6::float8[], $7::timestamptz[])
              AS u(id, seen_at, battery, battery_at, latitude, longitude, location_at)
        WHERE l.id = u.id`,
  },
  // The list may lag; a device read by id (detail, before an update) is read on the primary.
  replica: ['list'],
  // Every device-scoped read starts with it (telemetry, tracking, settings): one plan for any device.
  prepared: ['find'],
});
