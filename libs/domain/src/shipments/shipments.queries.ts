import { defineQueries } from '@app/database/sql';
import { MEASUREMENTS } from '../telemetry/telemetry-point';
import { TRACKED_POINTS } from './tracked-points.queries';

/**
 * Shipments with the names of their catalogue records (each joined inside the same account).
 * Statements append `WHERE s.account_id = $1 AND s.deleted_at IS NULL ...`.
 */
export const SHIPMENT_ROW_SELECT = `
  SELECT s.id, s.account_id, s.reference, s.name, s.status, s.template_id,
         s.origin_location_id, o.name AS origin_name, s.destination_location_id, d.name AS destination_name,
         s.receiver_id, r.name AS receiver_name, s.carrier_id, c.name AS carrier_name, s.alert_preset_id, p.name AS alert_preset_name,
         s.planned_departure_at, s.planned_arrival_at, s.transport_legs, s.started_at, s.arrived_at, s.completed_at, s.created_at, s.updated_at,
         ARRAY(SELECT sd.device_id FROM shipment_devices sd
                WHERE sd.shipment_id = s.id AND (sd.detached_at IS NULL OR sd.detached_at = s.completed_at)
                ORDER BY sd.attached_at, sd.id)::text[] AS device_ids
    FROM shipments s
    LEFT JOIN locations o ON o.account_id = s.account_id AND o.id = s.origin_location_id
    LEFT JOIN locations d ON d.account_id = s.account_id AND d.id = s.destination_location_id
    LEFT JOIN receivers r ON r.account_id = s.account_id AND r.id = s.receiver_id
    LEFT JOIN carriers c ON c.account_id = s.account_id AND c.id = s.carrier_id
    LEFT JOIN alert_presets p ON p.account_id = s.account_id AND p.id = s.alert_preset_id`;

/** The writable columns of a shipment, in the order of the repository's field parameters. */
const SHIPMENT_FIELD_COLUMNS = `reference, name, template_id, origin_location_id, destination_location_id, carrier_id, receiver_id,
  alert_preset_id, planned_departure_at, planned_arrival_at, transport_legs`;

const SHARE_COLUMNS = 'token_hash, link_nonce, expires_at, max_views, view_count, created_at, revoked_at';

/** A share link that still opens its page: known, not revoked, not expired, not used up, its shipment not deleted ($1: the token's hash). */
const WORKING_SHARE = `sh.token_hash = $1 AND sh.revoked_at IS NULL AND sh.expires_at > now() AND sh.view_count < sh.max_views
          AND EXISTS (SELECT 1 FROM shipments s WHERE s.id = sh.shipment_id AND s.account_id = sh.account_id AND s.deleted_at IS NULL)`;

/** Per-bucket count and min/avg/max of each measurement (the same downsampling as device telemetry). */
const BUCKET_STATS = MEASUREMENTS.map((m) => `min(${m}) AS ${m}_min, round(avg(${m})::numeric, 3)::float8 AS ${m}_avg, max(${m}) AS ${m}_max`).join(',\n');
const BUCKET_COLUMNS = MEASUREMENTS.map((m) => `a.${m}_min, a.${m}_avg, a.${m}_max`).join(', ');

export const SHIPMENT_QUERIES = defineQueries({
  owner: 'shipments',
  tables: ['shipments', 'shipment_devices', 'shipment_events', 'shipment_shares'],
  reads: ['locations', 'receivers', 'carriers', 'alert_presets', 'devices', 'device_lifecycles', 'telemetry_points', 'alarms', 'shipment_templates'],
  tenant: {
    // --- shipments
    /** The visible (not deleted) shipment. */
    row: `
      ${SHIPMENT_ROW_SELECT}
       WHERE s.account_id = $1 AND s.id = $2 AND s.deleted_at IS NULL`,
    /** Newest first; $3 status, $4 search pattern (names and labels), $5 keyset id — each null for any. */
    list: `
      ${SHIPMENT_ROW_SELECT}
       WHERE s.account_id = $1 AND s.deleted_at IS NULL
         AND ($3::text IS NULL OR s.status = $3::text)
         AND ($4::text IS NULL OR s.reference ILIKE $4::text OR s.name ILIKE $4::text OR r.name ILIKE $4::text OR c.name ILIKE $4::text
              OR EXISTS (SELECT 1 FROM shipment_devices sd JOIN device_lifecycles l ON l.id = sd.lifecycle_id
                          WHERE sd.shipment_id = s.id AND l.label ILIKE $4::text))
         AND ($5::integer IS NULL OR s.id < $5::integer)
       ORDER BY s.id DESC LIMIT $2`,
    insert: `
      INSERT INTO shipments (account_id, ${SHIPMENT_FIELD_COLUMNS}, started_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13)
      RETURNING id`,
    replace: `
      UPDATE shipments SET reference = $3, name = $4, template_id = $5, origin_location_id = $6, destination_location_id = $7, carrier_id = $8,
             receiver_id = $9, alert_preset_id = $10, planned_departure_at = $11, planned_arrival_at = $12, transport_legs = $13::jsonb, updated_at = now()
       WHERE account_id = $1 AND id = $2`,
    /** The row lock every change of status or route takes first. */
    lockForUpdate: `
      SELECT status, template_id, destination_location_id, arrived_at
        FROM shipments WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
    /** Keeps the shipment from being deleted until commit. */
    lockKeyShare: `SELECT 1 FROM shipments WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL FOR KEY SHARE`,
    markDeleted: `UPDATE shipments SET deleted_at = $3, updated_at = now() WHERE account_id = $1 AND id = $2`,
    markCompleted: `UPDATE shipments SET status = 'completed', completed_at = $3, completed_by = $4, updated_at = now() WHERE account_id = $1 AND id = $2`,
    markArrived: `UPDATE shipments SET arrived_at = $3, updated_at = now() WHERE account_id = $1 AND id = $2`,
    /** Every location the shipment's route names: origin, destination and each leg's ends. */
    routeLocations: `
      SELECT l.id, l.name, l.geofence, l.automation
        FROM locations l
       WHERE l.account_id = $1
         AND l.id IN (
           SELECT s.origin_location_id FROM shipments s WHERE s.account_id = $1 AND s.id = $2
           UNION SELECT s.destination_location_id FROM shipments s WHERE s.account_id = $1 AND s.id = $2
           UNION SELECT (leg->>'from_location_id')::uuid FROM shipments s, jsonb_array_elements(s.transport_legs) leg
                  WHERE s.account_id = $1 AND s.id = $2 AND leg->>'from_location_id' IS NOT NULL
           UNION SELECT (leg->>'to_location_id')::uuid FROM shipments s, jsonb_array_elements(s.transport_legs) leg
                  WHERE s.account_id = $1 AND s.id = $2 AND leg->>'to_location_id' IS NOT NULL)
       ORDER BY l.id`,
    locationAutomation: `SELECT id, automation FROM locations WHERE account_id = $1 AND id = ANY($2::uuid[])`,
    /** The template, share-locked like any other reference. */
    template: `
      SELECT origin_location_id, destination_location_id, carrier_id, receiver_id, alert_preset_id, transport_legs
        FROM shipment_templates WHERE account_id = $1 AND id = $2 FOR KEY SHARE`,
    /**
     * A catalogue record ($2..$7: the id for each column checked, null for the others; $8..$10: the
     * leg containment for each leg key checked, null for the others) held by an active shipment.
     */
    usedByActiveShipment: `
      SELECT EXISTS (
        SELECT 1 FROM shipments
         WHERE account_id = $1 AND status = 'active' AND deleted_at IS NULL
           AND (template_id = $2 OR origin_location_id = $3 OR destination_location_id = $4 OR carrier_id = $5 OR receiver_id = $6
                OR alert_preset_id = $7 OR transport_legs @> $8::jsonb OR transport_legs @> $9::jsonb OR transport_legs @> $10::jsonb)) AS used`,
    /** An alert preset named by a device's current settings (its open lifecycle in this account). */
    presetInDeviceSettings: `SELECT EXISTS (SELECT 1 FROM device_lifecycles WHERE account_id = $1 AND alert_preset_id = $2 AND ended_at IS NULL) AS used`,
    openAlarms: `SELECT count(*)::int AS open FROM alarms WHERE account_id = $1 AND shipment_id = $2 AND resolved_at IS NULL`,

    // --- shipment_devices
    activeShipmentOfDevice: `SELECT shipment_id FROM shipment_devices WHERE account_id = $1 AND device_id = $2 AND detached_at IS NULL`,
    attachedDeviceIds: `SELECT device_id FROM shipment_devices WHERE account_id = $1 AND shipment_id = $2 AND detached_at IS NULL`,
    deviceInShipment: `SELECT 1 FROM shipment_devices WHERE account_id = $1 AND shipment_id = $2 AND device_id = $3 LIMIT 1`,
    /** Visible devices' current lifecycles, key-share locked until commit. */
    visibleLifecycles: `
      SELECT d.id AS device_id, l.id AS lifecycle_id
        FROM device_lifecycles l JOIN devices d ON d.id = l.device_id
       WHERE l.account_id = $1 AND l.ended_at IS NULL AND d.approval_status = 'approved' AND d.deleted_at IS NULL
         AND d.id = ANY($2::uuid[])
       ORDER BY l.id
         FOR KEY SHARE OF l`,
    devicesInOtherShipments: `
      SELECT device_id FROM shipment_devices
       WHERE account_id = $1 AND device_id = ANY($2::uuid[]) AND detached_at IS NULL AND shipment_id IS DISTINCT FROM $3`,
    attach: `
      INSERT INTO shipment_devices (account_id, shipment_id, device_id, lifecycle_id, attached_at)
      SELECT $1, $2, device_id, lifecycle_id, $5 FROM unnest($3::uuid[], $4::uuid[]) AS a(device_id, lifecycle_id)`,
    /** $3: the devices to detach, null for all. */
    detach: `
      UPDATE shipment_devices SET detached_at = GREATEST($4::timestamptz, attached_at)
       WHERE account_id = $1 AND shipment_id = $2 AND detached_at IS NULL AND ($3::uuid[] IS NULL OR device_id = ANY($3::uuid[]))`,
    /** Completion: every open attachment ends at the completion moment. */
    closeAttachments: `UPDATE shipment_devices SET detached_at = $3 WHERE account_id = $1 AND shipment_id = $2 AND detached_at IS NULL`,
    devices: `
      SELECT sd.device_id, d.serial_number, l.label, sd.attached_at, sd.detached_at
        FROM shipment_devices sd
        JOIN devices d ON d.id = sd.device_id
        JOIN device_lifecycles l ON l.id = sd.lifecycle_id AND l.account_id = sd.account_id
       WHERE sd.account_id = $1 AND sd.shipment_id = $2
       ORDER BY sd.attached_at, sd.id`,
    deviceSettings: `
      SELECT l.thresholds, l.alert_preset_id FROM shipment_devices sd JOIN device_lifecycles l ON l.id = sd.lifecycle_id
       WHERE sd.account_id = $1 AND sd.shipment_id = $2 ORDER BY sd.attached_at, sd.id`,

    // --- tracked points ($1..$6: trackedPointsParams)
    trackedSummary: `
      SELECT count(*)::int AS point_count, min(p.temperature)::float8 AS min, max(p.temperature)::float8 AS max,
             round(avg(p.temperature)::numeric, 3)::float8 AS avg
        FROM (${TRACKED_POINTS}) p`,
    lastTrackedFix: `SELECT p.latitude, p.longitude, p.recorded_at FROM (${TRACKED_POINTS}) p WHERE p.latitude IS NOT NULL ORDER BY p.recorded_at DESC LIMIT 1`,
    /** Up to $9 points after the ($7, $8) keyset position (null: from the start). */
    trackedPoints: `
      SELECT * FROM (${TRACKED_POINTS}) p
       WHERE $7::timestamptz IS NULL OR (p.recorded_at, p.device_id) > ($7::timestamptz, $8::uuid)
       ORDER BY p.recorded_at, p.device_id
       LIMIT $9`,
    /** Every bucket of width $7 from $8 to $9 (empty ones included). */
    trackedBuckets: `
      WITH points AS (${TRACKED_POINTS}),
      aggregated AS (
        SELECT date_bin($7::interval, recorded_at, 'epoch'::timestamptz) AS bucket_start, count(*)::int AS count,
               ${BUCKET_STATS}
          FROM points
         GROUP BY 1)
      SELECT b.bucket_start, COALESCE(a.count, 0) AS count, ${BUCKET_COLUMNS}
        FROM generate_series($8::timestamptz, $9::timestamptz, $7::interval) AS b(bucket_start)
        LEFT JOIN aggregated a ON a.bucket_start = b.bucket_start
       ORDER BY b.bucket_start`,

    // --- shipment_events
    insertEvent: `
      INSERT INTO shipment_events (account_id, id, shipment_id, kind, location_id, device_id, recorded_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    latestEvents: `
      SELECT kind, location_id, device_id, recorded_at FROM shipment_events
       WHERE account_id = $1 AND shipment_id = $2 ORDER BY recorded_at DESC, id DESC LIMIT $3`,
    reachedLocations: `
      SELECT DISTINCT location_id FROM shipment_events
       WHERE account_id = $1 AND shipment_id = $2 AND kind IN ('geofence_entry', 'arrival') AND location_id IS NOT NULL`,

    // --- shipment_shares
    share: `SELECT ${SHARE_COLUMNS} FROM shipment_shares WHERE account_id = $1 AND shipment_id = $2`,
    /** Creates the share, or refreshes it: a new token and nonce, the view count back to 0. */
    putShare: `
      INSERT INTO shipment_shares (account_id, shipment_id, token_hash, link_nonce, expires_at, max_views, view_count, created_at, revoked_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, 0, $7, NULL, $7)
      ON CONFLICT (shipment_id) DO UPDATE
        SET token_hash = EXCLUDED.token_hash, link_nonce = EXCLUDED.link_nonce, expires_at = EXCLUDED.expires_at, max_views = EXCLUDED.max_views,
            view_count = 0, created_at = EXCLUDED.created_at, revoked_at = NULL, updated_at = EXCLUDED.updated_at
      RETURNING ${SHARE_COLUMNS}`,
    revokeShare: `UPDATE shipment_shares SET revoked_at = now(), updated_at = now() WHERE account_id = $1 AND shipment_id = $2 AND revoked_at IS NULL`,
  },
  platform: {
    /** Ingestion: the active shipment of each (account, device) of a batch, across tenants. */
    activeShipmentsOfDevices: `
      SELECT sd.device_id, sd.shipment_id
        FROM shipment_devices sd
        JOIN unnest($1::uuid[], $2::uuid[]) AS wanted(account_id, device_id) ON sd.device_id = wanted.device_id AND sd.account_id = wanted.account_id
       WHERE sd.detached_at IS NULL`,
    /** The public page, by the globally unique token hash: counts one view of a working link. */
    countShareView: `UPDATE shipment_shares sh SET view_count = sh.view_count + 1 WHERE ${WORKING_SHARE} RETURNING sh.account_id, sh.shipment_id, sh.expires_at`,
    /** The same answer without counting a view (HEAD requests). */
    peekShareView: `SELECT sh.account_id, sh.shipment_id, sh.expires_at FROM shipment_shares sh WHERE ${WORKING_SHARE}`,
    /** The share a token hash belongs to (to check the token against the current key). */
    shareByTokenHash: `SELECT account_id, shipment_id, link_nonce FROM shipment_shares WHERE token_hash = $1`,
    /** A device changes owner: the ending lifecycle's open attachment ends with it (same transaction, same now()). */
    detachLifecycle: `UPDATE shipment_devices SET detached_at = GREATEST(now(), attached_at) WHERE lifecycle_id = $1 AND detached_at IS NULL`,
  },
  // The list and the tracked telemetry may lag; the shipment itself (detail) is read on the primary.
  replica: ['list', 'trackedSummary', 'lastTrackedFix', 'trackedPoints', 'trackedBuckets'],
});
