import { defineQueries } from '@app/database/sql';

/**
 * The demo fixture's statements (DESIGN §demo fixture), run only by the CLI's `demo:seed` and
 * `npm start`'s fixture through `@app/domain/demo`. It owns no table: it writes the families'
 * tables directly (history, not news: no outbox events, no audit of a request), which only this
 * owner may do (`writes`, checked by test/deployment/queries.spec.ts). No production family
 * declares a seed statement.
 */
export const DEMO_QUERIES = defineQueries({
  owner: 'demo',
  tables: [],
  writes: [
    'accounts', 'users', 'locations', 'carriers', 'receivers', 'alert_presets', 'shipment_templates', 'devices', 'device_lifecycles',
    'device_maintenance_records', 'telemetry_points', 'alarms', 'shipments', 'shipment_devices', 'shipment_shares', 'ais_positions',
  ],
  reads: ['reports'],
  platform: {
    // Accounts and users: fixed ids, created once.
    countAccounts: 'SELECT count(*)::int AS n FROM accounts',
    seedDemoAccount: `
      INSERT INTO accounts (id, name, kind, status, subscription_plan, legal_name, contact_email, country)
      VALUES ($1, $2, $3, $4, 'enterprise', $2 || ' A.S.', 'ops@' || lower(replace($2, ' ', '-')) || '.example', 'TR')
      ON CONFLICT (id) DO NOTHING`,
    seedDemoUser: `
      INSERT INTO users (id, account_id, email, full_name, locale, role, is_active, is_platform_staff, is_superuser)
      VALUES ($1, $2, $3, $4, 'en', $5, true, $6, false)
      ON CONFLICT DO NOTHING`,
    // The catalogue: fixed ids, created once.
    seedDemoLocation: `
      INSERT INTO locations (id, account_id, name, kind, city, country, geofence, automation)
      VALUES ($1, $2, $3, $4, $5, 'TR', $6::jsonb, $7::jsonb) ON CONFLICT (id) DO NOTHING`,
    seedDemoCarrier: `
      INSERT INTO carriers (id, account_id, name, mode, contact_email, scac, iata_code, mmsi, imo)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
    seedDemoReceiver: `
      INSERT INTO receivers (id, account_id, name, city, country, contact_email, notification_emails, delivery_parties)
      VALUES ($1, $2, $3, $4, 'TR', $5, $6, $7::jsonb) ON CONFLICT (id) DO NOTHING`,
    seedDemoAlertPreset: `
      INSERT INTO alert_presets (id, account_id, name, temperature_min, temperature_max, light_max, shock_max, battery_min, delay_minutes)
      VALUES ($1, $2, $3, $4, $5, 50, 8, 15, $6) ON CONFLICT (id) DO NOTHING`,
    seedDemoShipmentTemplate: `
      INSERT INTO shipment_templates (id, account_id, name, origin_location_id, destination_location_id, carrier_id, receiver_id, alert_preset_id, transport_legs)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb) ON CONFLICT (id) DO NOTHING`,
    // Devices and their week of telemetry and alarms (history written directly, idempotent: ON CONFLICT DO NOTHING).
    /** The history is anchored on the first demo device's approval. */
    deviceApprovedAt: `SELECT approved_at FROM devices WHERE id = $1`,
    seedDemoDevices: `
      INSERT INTO devices (id, serial_number, model, firmware_version, imei, sim_iccid, firmware_key, approval_status, approved_at, purchase_cost, deleted_at)
        SELECT id, serial, 'ColdTrack T4', '4.2.0', '35000000000' || right(serial, 4), '8990000000000000' || right(serial, 4),
               md5(serial), CASE WHEN approved THEN 'approved' ELSE 'pending' END, CASE WHEN approved THEN $5::timestamptz END, 149.00,
               CASE WHEN deleted THEN $5::timestamptz END
          FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::boolean[]) AS d(id, serial, approved, deleted)
        ON CONFLICT (id) DO NOTHING`,
    seedDemoLifecycles: `
      INSERT INTO device_lifecycles (id, device_id, account_id, started_at, label, thresholds)
        SELECT lifecycle_id, device_id, account_id, $4, 'Reefer ' || right(device_id::text, 2), '{"temperature_min": 2, "temperature_max": 8}'
          FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS l(lifecycle_id, device_id, account_id)
        ON CONFLICT (id) DO NOTHING`,
    seedDemoPreviousLifecycle: `
      INSERT INTO device_lifecycles (id, device_id, account_id, started_at, ended_at, label, thresholds)
        SELECT $1, $2, $3, started_at - interval '60 days', started_at, 'Secondary truck 9', '{"temperature_max": 25}'
          FROM device_lifecycles WHERE id = $4
        ON CONFLICT (id) DO NOTHING`,
    seedDemoLastSeen: `
      UPDATE device_lifecycles l
           SET last_seen_at = p.recorded_at, battery = p.battery, battery_at = p.recorded_at,
               latitude = p.latitude, longitude = p.longitude, location_at = p.recorded_at
          FROM device_lifecycles cur
          CROSS JOIN LATERAL (
            SELECT recorded_at, battery, latitude, longitude FROM telemetry_points t
             WHERE t.device_id = cur.device_id AND t.lifecycle_id = cur.id
             ORDER BY recorded_at DESC LIMIT 1) p
         WHERE l.id = cur.id AND cur.device_id = ANY($1::uuid[])`,
    seedDemoMaintenance: `
      INSERT INTO device_maintenance_records (id, device_id, lifecycle_id, kind, performed_at, summary, next_due_at, cost_amount, cost_currency, internal_notes)
        SELECT id, device_id, lifecycle_id, kind, performed_at, summary, next_due_at, cost, 'EUR', 'invoice on file'
          FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::timestamptz[], $8::numeric[])
               AS r(id, device_id, lifecycle_id, kind, performed_at, summary, next_due_at, cost)
        ON CONFLICT (id) DO NOTHING`,
    seedDemoTelemetry: `
      INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
        SELECT l.device_id, l.id, ts,
               41.0082 + 0.02 * sin(extract(epoch FROM ts) / 7200 + k), 28.9784 + 0.02 * cos(extract(epoch FROM ts) / 7200 + k),
               round((5 + 1.5 * sin(extract(epoch FROM ts) / 3600 + k))::numeric, 2),
               round((50 + 5 * cos(extract(epoch FROM ts) / 5400 + k))::numeric, 1),
               0, 0.1,
               round((100 - 10 * extract(epoch FROM ($1::timestamptz - ts)) / 604800)::numeric, 1)
          FROM unnest($2::uuid[]) WITH ORDINALITY AS d(device_id, k)
          JOIN device_lifecycles l ON l.device_id = d.device_id AND l.ended_at IS NULL
          CROSS JOIN generate_series(date_bin('5 minutes', $1::timestamptz - interval '7 days', 'epoch'), $1::timestamptz, interval '5 minutes') AS ts
         WHERE ts >= l.started_at
        ON CONFLICT (device_id, recorded_at) DO NOTHING`,
    seedDemoPreviousTelemetry: `
      INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, temperature, humidity, battery)
        SELECT l.device_id, l.id, ts, 18.5, 40, 80
          FROM device_lifecycles l
          CROSS JOIN generate_series(l.ended_at - interval '1 day', l.ended_at - interval '5 minutes', interval '5 minutes') AS ts
         WHERE l.id = $1
        ON CONFLICT (device_id, recorded_at) DO NOTHING`,
    seedDemoHistory: `
      INSERT INTO alarms (id, account_id, device_id, lifecycle_id, type, severity, source, message, triggered_at, created_at, updated_at, resolved_at)
        SELECT id, account_id, device_id, lifecycle_id, type, severity, source, message, at, at, at, resolved_at
          FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[])
               AS a(id, account_id, device_id, lifecycle_id, type, severity, source, message, at, resolved_at)
        ON CONFLICT DO NOTHING`,
    // Shipments (history written directly: no outbox events), under an advisory lock so that two seeds never race.
    demoSeedLock: `SELECT pg_advisory_xact_lock(hashtext('demo-seed-shipments'))`,
    seedDemoShipment: `
      INSERT INTO shipments (account_id, reference, name, status, template_id, origin_location_id, destination_location_id, carrier_id, receiver_id, alert_preset_id,
                             planned_departure_at, planned_arrival_at, transport_legs, started_at, completed_at, completed_by)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $11, $14, $15)
      RETURNING id`,
    demoShipmentByReference: `SELECT id FROM shipments WHERE account_id = $1 AND reference = $2 ORDER BY id LIMIT 1`,
    seedDemoAttachments: `
      INSERT INTO shipment_devices (shipment_id, account_id, device_id, lifecycle_id, attached_at, detached_at)
      SELECT $1, $2, l.device_id, l.id, $4, $5 FROM device_lifecycles l WHERE l.device_id = ANY($3::uuid[]) AND l.ended_at IS NULL AND l.account_id = $2
      ON CONFLICT (device_id) WHERE detached_at IS NULL DO NOTHING`,
    seedDemoShare: `
      INSERT INTO shipment_shares (shipment_id, account_id, token_hash, link_nonce, expires_at, max_views, created_at)
      VALUES ($1, $2, sha256(convert_to($3, 'UTF8')), $4, $5, 1000, $6) ON CONFLICT (shipment_id) DO NOTHING`,
    /** A resolved excursion of the completed demo shipment. */
    seedDemoAlarm: `
      INSERT INTO alarms (id, account_id, device_id, lifecycle_id, shipment_id, type, severity, source, message, triggered_at, created_at, updated_at, resolved_at)
      SELECT $1, $2, l.device_id, l.id, $3, 'TEMPERATURE', 'WARNING', 'THRESHOLD', 'Temperature 8.4 °C above the maximum of 8 °C for at least 15 min.', $4, $4, $4, $5
        FROM device_lifecycles l WHERE l.device_id = $6 AND l.ended_at IS NULL
      ON CONFLICT DO NOTHING`,
    /** Hourly positions of the demo vessel between Izmir and Istanbul, up to now. */
    seedDemoVesselTrack: `
      INSERT INTO ais_positions (mmsi, imo, recorded_at, latitude, longitude, speed_knots, course_deg)
      SELECT $1, $2, ts,
             38.44 + 2.5 * least(1, extract(epoch FROM ts - $3::timestamptz) / 432000),
             26.6 + 0.5 * sin(extract(epoch FROM ts) / 20000),
             14.5, 12
        FROM generate_series(date_bin('1 hour', $3::timestamptz, 'epoch'), now(), interval '1 hour') AS ts
      ON CONFLICT (vessel_key, recorded_at) DO NOTHING`,
    /** Which of the demo's fixed report ids exist already (the reports are generated through the reports family). */
    existingReportIds: `SELECT id FROM reports WHERE id = ANY($1::uuid[])`,
  },
});
