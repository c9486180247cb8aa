import type { DataSource } from 'typeorm';
import { newId } from '@app/database';
import { detachDeviceLifecycle, DeviceAdminService } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { assertValidOpenApiDocument } from '../support/contract';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { backdateLifecycle, ingestService, minutesAgo, point, registerDevice, registerDevices } from '../support/devices';

const DEVICE_FIELDS = ['firmware_version', 'hardware_revision', 'id', 'label', 'model', 'owned_since', 'serial_number', 'settings'];

describe('Devices', () => {
  let api: TestApi;
  let db: DataSource;
  let tenant: Tenant;
  let stranger: Tenant;

  beforeAll(async () => {
    api = await startApi();
    db = dataSourceOf(api.app);
    tenant = await createTenant(api.app, undefined, 'Device owner');
    stranger = await createTenant(api.app, undefined, 'Stranger');
  });
  afterAll(() => api.close());

  it('documents every devices, telemetry and alarms operation with its scopes, in a valid OpenAPI document', async () => {
    await assertValidOpenApiDocument(api.document);
    const paths = api.document.paths as Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
    const scopes = (path: string, method: string) => paths[`${API}${path}`]?.[method]?.security?.[0]?.oauth2;
    expect(
      [
        ['/devices/', 'get'],
        ['/devices/{device_id}/', 'get'],
        ['/devices/{device_id}/label/', 'patch'],
        ['/devices/{device_id}/settings/', 'patch'],
        ['/devices/{device_id}/status/', 'get'],
        ['/devices/{device_id}/alarms/', 'get'],
        ['/devices/{device_id}/maintenance/', 'get'],
        ['/devices/{device_id}/telemetry/', 'get'],
        ['/alarms/', 'get'],
        ['/alarms/{alarm_id}/', 'get'],
        ['/alarms/{alarm_id}/', 'patch'],
      ].map(([path, method]) => [path, method, scopes(path, method)]),
    ).toEqual([
      ['/devices/', 'get', ['devices:read']],
      ['/devices/{device_id}/', 'get', ['devices:read']],
      ['/devices/{device_id}/label/', 'patch', ['devices:read', 'devices:label:write']],
      ['/devices/{device_id}/settings/', 'patch', ['devices:read', 'devices:settings:write']],
      ['/devices/{device_id}/status/', 'get', ['devices:read']],
      ['/devices/{device_id}/alarms/', 'get', ['alarms:read']],
      ['/devices/{device_id}/maintenance/', 'get', ['maintenance:read']],
      ['/devices/{device_id}/telemetry/', 'get', ['telemetry:read']],
      ['/alarms/', 'get', ['alarms:read']],
      ['/alarms/{alarm_id}/', 'get', ['alarms:read']],
      ['/alarms/{alarm_id}/', 'patch', ['alarms:write']],
    ]);
    const description = String((api.document.info as { description: string }).description);
    expect(description).toContain('`range_too_large` | 400');
    expect(description).toContain('`alarm_already_resolved` | 409');
  });

  describe('GET /devices/ and detail', () => {
    it('lists only approved, non-deleted devices of the tenant, in a safe view, paged by id', async () => {
      const owner = await createTenant(api.app, ['devices:read']);
      const visible = await registerDevices(db, owner.accountId, 3);
      await registerDevice(db, owner.accountId, false);
      const deleted = await registerDevice(db, owner.accountId);
      await db.query('UPDATE devices SET deleted_at = now() WHERE id = $1', [deleted.id]);
      await registerDevices(db, stranger.accountId, 2);

      const first = await api.http.get(`${API}/devices/?limit=2`).set(owner.auth).expect(200);
      expect(first.body.data).toHaveLength(2);
      expect(first.body.links.next).toMatch(/^http:\/\/api\.test\/api\/public\/v1\/devices\/\?limit=2&cursor=/);
      const second = await api.http.get(new URL(first.body.links.next).pathname + new URL(first.body.links.next).search).set(owner.auth).expect(200);
      expect(second.body.links.next).toBeNull();
      const ids = [...first.body.data, ...second.body.data].map((d: { id: string }) => d.id);
      expect(ids).toEqual(visible.map((d) => d.id).sort());

      const device = first.body.data[0];
      expect(Object.keys(device).sort()).toEqual(DEVICE_FIELDS);
      expect(device.settings).toEqual({
        measurement_interval_s: 300,
        transmission_interval_s: 900,
        sensors: { temperature: true, humidity: true, light: true, shock: true, location: true },
        thresholds: {
          temperature_min: null, temperature_max: null, humidity_min: null, humidity_max: null,
          light_max: null, shock_max: null, battery_min: null, delay_minutes: null,
        },
        alert_preset_id: null,
      });
      const text = JSON.stringify(first.body);
      for (const secret of ['imei', 'iccid', 'sim', 'firmware_key', 'approval', 'cost']) expect(text).not.toContain(secret);
    });

    it('answers 404 for unapproved, deleted, foreign, unknown and malformed device ids', async () => {
      const mine = await registerDevice(db, tenant.accountId);
      const unapproved = await registerDevice(db, tenant.accountId, false);
      const deleted = await registerDevice(db, tenant.accountId);
      await db.query('UPDATE devices SET deleted_at = now() WHERE id = $1', [deleted.id]);
      const foreign = await registerDevice(db, stranger.accountId);

      const res = await api.http.get(`${API}/devices/${mine.id}/`).set(tenant.auth).expect(200);
      expect(res.body.serial_number).toBe(mine.serial_number);
      for (const id of [unapproved.id, deleted.id, foreign.id, newId(), 'not-a-uuid', '123']) {
        const missing = await api.http.get(`${API}/devices/${id}/`).set(tenant.auth).expect(404);
        expect(missing.body.code).toBe('not_found');
      }
    });

    it('shows an approved device once the platform approves it', async () => {
      const pending = await registerDevice(db, tenant.accountId, false);
      await api.http.get(`${API}/devices/${pending.id}/`).set(tenant.auth).expect(404);
      await new DeviceAdminService(db, detachDeviceLifecycle).approve(pending.id);
      await api.http.get(`${API}/devices/${pending.id}/`).set(tenant.auth).expect(200);
    });
  });

  describe('cross-tenant isolation', () => {
    it('answers 404 on every device sub-resource for another tenant’s device', async () => {
      const foreign = await registerDevice(db, stranger.accountId);
      const base = `${API}/devices/${foreign.id}`;
      const calls = [
        api.http.get(`${base}/`),
        api.http.patch(`${base}/label/`).send({ label: 'mine now' }),
        api.http.patch(`${base}/settings/`).send({ measurement_interval_s: 60 }),
        api.http.get(`${base}/status/`),
        api.http.get(`${base}/maintenance/`),
        api.http.get(`${base}/alarms/`),
        api.http.get(`${base}/telemetry/`),
        api.http.get(`${base}/telemetry/?bucket=1h`),
      ];
      for (const call of calls) {
        const res = await call.set(tenant.auth).expect(404);
        expect(res.body.code).toBe('not_found');
      }
      const [row] = await db.query('SELECT label, measurement_interval_s FROM device_lifecycles WHERE device_id = $1', [foreign.id]);
      expect(row).toEqual({ label: null, measurement_interval_s: 300 });
    });
  });

  describe('PATCH /devices/{id}/label/', () => {
    it('changes only the label, refuses other fields, and needs devices:label:write', async () => {
      const device = await registerDevice(db, tenant.accountId);
      const res = await api.http.patch(`${API}/devices/${device.id}/label/`).set(tenant.auth).send({ label: 'Reefer 7' }).expect(200);
      expect(res.body.label).toBe('Reefer 7');

      const refused = await api.http.patch(`${API}/devices/${device.id}/label/`).set(tenant.auth).send({ label: 'x', model: 'Hacked' }).expect(400);
      expect(refused.body.code).toBe('validation_failed');
      expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'model', code: 'unknown_field' })]);
      await api.http.patch(`${API}/devices/${device.id}/label/`).set(tenant.auth).send({ label: '' }).expect(400);
      await api.http.patch(`${API}/devices/${device.id}/label/`).set(tenant.auth).send({ label: 'x'.repeat(101) }).expect(400);

      const cleared = await api.http.patch(`${API}/devices/${device.id}/label/`).set(tenant.auth).send({ label: null }).expect(200);
      expect(cleared.body.label).toBeNull();
      expect((await api.http.get(`${API}/devices/${device.id}/`).set(tenant.auth).expect(200)).body.model).toBe('ColdTrack T4');

      const readOnly = await createTenant(api.app, ['devices:read']);
      const own = await registerDevice(db, readOnly.accountId);
      const denied = await api.http.patch(`${API}/devices/${own.id}/label/`).set(readOnly.auth).send({ label: 'x' }).expect(403);
      expect(denied.headers['www-authenticate']).toContain('devices:read devices:label:write');
      const writeOnly = await createTenant(api.app, ['devices:label:write']);
      const other = await registerDevice(db, writeOnly.accountId);
      await api.http.patch(`${API}/devices/${other.id}/label/`).set(writeOnly.auth).send({ label: 'x' }).expect(403);
    });
  });

  describe('PATCH /devices/{id}/settings/', () => {
    it('merges the fields sent, nested ones included, and clears a threshold with null', async () => {
      const device = await registerDevice(db, tenant.accountId);
      const url = `${API}/devices/${device.id}/settings/`;
      await api.http
        .patch(url)
        .set(tenant.auth)
        .send({ measurement_interval_s: 60, thresholds: { temperature_min: 2, temperature_max: 8, delay_minutes: 10 }, sensors: { light: false } })
        .expect(200);
      const res = await api.http.patch(url).set(tenant.auth).send({ thresholds: { temperature_min: null, humidity_max: 80.5 } }).expect(200);
      expect(res.body.settings).toEqual({
        measurement_interval_s: 60,
        transmission_interval_s: 900,
        sensors: { temperature: true, humidity: true, light: false, shock: true, location: true },
        thresholds: {
          temperature_min: null, temperature_max: 8, humidity_min: null, humidity_max: 80.5,
          light_max: null, shock_max: null, battery_min: null, delay_minutes: 10,
        },
        alert_preset_id: null,
      });
    });

    it.each([
      [{ measurement_interval_s: 5 }, 'measurement_interval_s'],
      [{ transmission_interval_s: 86_401 }, 'transmission_interval_s'],
      [{ measurement_interval_s: 1.5 }, 'measurement_interval_s'],
      [{ measurement_interval_s: null }, 'measurement_interval_s'],
      [{ measurement_interval_s: 1200 }, 'transmission_interval_s'],
      [{ thresholds: { temperature_max: 101 } }, 'thresholds.temperature_max'],
      [{ thresholds: { humidity_min: 60, humidity_max: 40 } }, 'thresholds.humidity_min'],
      [{ thresholds: { delay_minutes: 2.5 } }, 'thresholds.delay_minutes'],
      [{ thresholds: { pressure_max: 3 } }, 'thresholds.pressure_max'],
      [{ sensors: { temperature: 'yes' } }, 'sensors.temperature'],
      [{ sensors: { radar: true } }, 'sensors.radar'],
      [{ sensors: null }, 'sensors'],
      [{ alert_preset_id: 'nope' }, 'alert_preset_id'],
      [{ alert_preset_id: '0190a000-0000-7000-8000-000000000001' }, 'alert_preset_id'],
      [{ label: 'not here' }, 'label'],
    ])('refuses %j naming %s', async (body, field) => {
      const device = await registerDevice(db, tenant.accountId);
      const res = await api.http.patch(`${API}/devices/${device.id}/settings/`).set(tenant.auth).send(body).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      const [row] = await db.query('SELECT measurement_interval_s, thresholds FROM device_lifecycles WHERE device_id = $1', [device.id]);
      expect(row).toEqual({ measurement_interval_s: 300, thresholds: {} });
    });

    it('accepts the tenant’s own alert preset and refuses another tenant’s', async () => {
      const device = await registerDevice(db, tenant.accountId);
      const url = `${API}/devices/${device.id}/settings/`;
      const unknown = await api.http.patch(url).set(tenant.auth).send({ alert_preset_id: newId() }).expect(400);
      expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'alert_preset_id', code: 'unknown_alert_preset' })]);
      const own = await insertMinimalPreset(db, tenant.accountId);
      const foreign = await insertMinimalPreset(db, stranger.accountId);
      const res = await api.http.patch(url).set(tenant.auth).send({ alert_preset_id: own }).expect(200);
      expect(res.body.settings.alert_preset_id).toBe(own);
      await api.http.patch(url).set(tenant.auth).send({ alert_preset_id: foreign }).expect(400);
      const detached = await api.http.patch(url).set(tenant.auth).send({ alert_preset_id: null }).expect(200);
      expect(detached.body.settings.alert_preset_id).toBeNull();
    });

    it('needs devices:read and devices:settings:write', async () => {
      const limited = await createTenant(api.app, ['devices:read', 'devices:label:write']);
      const device = await registerDevice(db, limited.accountId);
      await api.http.patch(`${API}/devices/${device.id}/settings/`).set(limited.auth).send({ measurement_interval_s: 60 }).expect(403);
    });
  });

  describe('GET /devices/{id}/status/', () => {
    it('derives connectivity from the last contact and the transmission interval', async () => {
      const device = await registerDevice(db, tenant.accountId);
      await backdateLifecycle(db, device.id, minutesAgo(24 * 60));
      const url = `${API}/devices/${device.id}/status/`;
      expect((await api.http.get(url).set(tenant.auth).expect(200)).body).toEqual({
        device_id: device.id, connectivity: 'offline', last_seen_at: null, battery: null, location: null,
      });

      // transmission every 15 min: offline after 45 min of silence
      await ingestService(db).ingest([
        point(device.id, minutesAgo(50), { battery: 81, latitude: 41.01, longitude: 28.97 }),
        point(device.id, minutesAgo(46), { temperature: 4 }),
      ]);
      const stale = await api.http.get(url).set(tenant.auth).expect(200);
      expect(stale.body).toMatchObject({ connectivity: 'offline', last_seen_at: minutesAgo(46).toISOString() });

      await ingestService(db).ingest([point(device.id, minutesAgo(2), { battery: 79.5 }), point(device.id, minutesAgo(30), { latitude: 41.02, longitude: 28.98 })]);
      const fresh = await api.http.get(url).set(tenant.auth).expect(200);
      expect(fresh.body).toEqual({
        device_id: device.id,
        connectivity: 'online',
        last_seen_at: minutesAgo(2).toISOString(),
        battery: { percent: 79.5, recorded_at: minutesAgo(2).toISOString() },
        location: { latitude: 41.02, longitude: 28.98, recorded_at: minutesAgo(30).toISOString() },
      });

      // a late point does not move the status backwards
      await ingestService(db).ingest([point(device.id, minutesAgo(40), { battery: 99, latitude: 1, longitude: 1 })]);
      expect((await api.http.get(url).set(tenant.auth).expect(200)).body).toEqual(fresh.body);
    });
  });

  describe('GET /devices/{id}/maintenance/', () => {
    it('lists the ownership’s and platform-side records newest first, without cost fields', async () => {
      const readonly = await createTenant(api.app, ['maintenance:read']);
      const device = await registerDevice(db, readonly.accountId);
      const [{ lifecycle }] = await db.query('SELECT id AS lifecycle FROM device_lifecycles WHERE device_id = $1', [device.id]);
      const previous = newId();
      await db.query(
        `INSERT INTO device_lifecycles (id, device_id, account_id, started_at, ended_at) VALUES ($1, $2, $3, now() - interval '90 days', now() - interval '60 days')`,
        [previous, device.id, stranger.accountId],
      );
      const insert = (lifecycleId: string | null, kind: string, daysAgo: number, summary: string) =>
        db.query(
          `INSERT INTO device_maintenance_records (id, device_id, lifecycle_id, kind, performed_at, summary, cost_amount, cost_currency, internal_notes)
           VALUES ($1, $2, $3, $4, now() - make_interval(days => $5), $6, 99.90, 'EUR', 'secret')`,
          [newId(), device.id, lifecycleId, kind, daysAgo, summary],
        );
      await insert(null, 'calibration', 30, 'Calibrated');
      await insert(lifecycle, 'fault', 2, 'GPS fault');
      await insert(lifecycle, 'repair', 1, 'Antenna replaced');
      await insert(previous, 'maintenance', 70, 'Previous owner’s service');

      const first = await api.http.get(`${API}/devices/${device.id}/maintenance/?limit=2`).set(readonly.auth).expect(200);
      const next = new URL(first.body.links.next);
      const second = await api.http.get(next.pathname + next.search).set(readonly.auth).expect(200);
      const records = [...first.body.data, ...second.body.data];
      expect(records.map((r: { summary: string }) => r.summary)).toEqual(['Antenna replaced', 'GPS fault', 'Calibrated']);
      expect(records.map((r: { type: string }) => r.type)).toEqual(['repair', 'fault', 'calibration']);
      expect(Object.keys(records[0]).sort()).toEqual(['created_at', 'details', 'device_id', 'id', 'next_due_at', 'performed_at', 'summary', 'type']);
      expect(JSON.stringify(records)).not.toMatch(/cost|99\.9|EUR|secret/);
    });
  });

  describe('lifecycles', () => {
    it('gives a new owner a clean device: none of the previous owner’s label, settings, status, telemetry, alarms or maintenance', async () => {
      const previousOwner = await createTenant(api.app, undefined, 'Previous owner');
      const newOwner = await createTenant(api.app, undefined, 'New owner');
      const device = await registerDevice(db, previousOwner.accountId);
      await backdateLifecycle(db, device.id, minutesAgo(3 * 24 * 60));
      const base = `${API}/devices/${device.id}`;
      await api.http.patch(`${base}/label/`).set(previousOwner.auth).send({ label: 'Old owner truck' }).expect(200);
      await api.http.patch(`${base}/settings/`).set(previousOwner.auth).send({ thresholds: { temperature_max: 8 } }).expect(200);
      const ingested = await ingestService(db).ingest([
        point(device.id, minutesAgo(120), { temperature: 20, battery: 50, latitude: 40, longitude: 29 }),
        point(device.id, minutesAgo(60), { temperature: 5 }),
      ]);
      expect(ingested).toMatchObject({ accepted: 2, alarms: [expect.objectContaining({ type: 'TEMPERATURE' })] });
      const [{ lifecycle: oldLifecycle }] = await db.query('SELECT id AS lifecycle FROM device_lifecycles WHERE device_id = $1', [device.id]);
      await db.query(
        `INSERT INTO device_maintenance_records (id, device_id, lifecycle_id, kind, performed_at, summary) VALUES ($1, $2, $3, 'repair', now(), 'old owner repair')`,
        [newId(), device.id, oldLifecycle],
      );

      const transfer = await new DeviceAdminService(db, detachDeviceLifecycle).transfer(device.id, newOwner.accountId);
      expect(transfer).toMatchObject({ previous_account_id: previousOwner.accountId, account_id: newOwner.accountId });

      await api.http.get(`${base}/`).set(previousOwner.auth).expect(404);
      const seen = await api.http.get(`${base}/`).set(newOwner.auth).expect(200);
      expect(seen.body.label).toBeNull();
      expect(seen.body.settings.thresholds.temperature_max).toBeNull();
      expect(new Date(seen.body.owned_since).getTime()).toBeGreaterThan(minutesAgo(5).getTime());
      expect((await api.http.get(`${base}/status/`).set(newOwner.auth).expect(200)).body).toMatchObject({
        connectivity: 'offline', last_seen_at: null, battery: null, location: null,
      });
      const from = minutesAgo(24 * 60).toISOString();
      const telemetry = await api.http.get(`${base}/telemetry/`).query({ from }).set(newOwner.auth).expect(200);
      expect(telemetry.body.data).toEqual([]);
      const buckets = await api.http.get(`${base}/telemetry/`).query({ from, bucket: '1d' }).set(newOwner.auth).expect(200);
      expect(buckets.body.data.every((b: { count: number }) => b.count === 0)).toBe(true);
      expect((await api.http.get(`${base}/alarms/`).set(newOwner.auth).expect(200)).body.data).toEqual([]);
      expect((await api.http.get(`${API}/alarms/?device_id=${device.id}`).set(newOwner.auth).expect(200)).body.data).toEqual([]);
      expect((await api.http.get(`${base}/maintenance/`).set(newOwner.auth).expect(200)).body.data).toEqual([]);

      // the previous owner keeps its own alarm history
      const history = await api.http.get(`${API}/alarms/?device_id=${device.id}`).set(previousOwner.auth).expect(200);
      expect(history.body.data).toHaveLength(1);

      // new points land in the new owner's lifecycle; a late point of the old ownership stays there
      await ingestService(db).ingest([point(device.id, new Date(), { temperature: 3 }), point(device.id, minutesAgo(90), { temperature: 6 })]);
      const after = await api.http.get(`${base}/telemetry/`).query({ from }).set(newOwner.auth).expect(200);
      expect(after.body.data.map((p: { temperature: number }) => p.temperature)).toEqual([3]);
      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM telemetry_points WHERE lifecycle_id = $1', [oldLifecycle]);
      expect(count).toBe(3);
    });
  });
});

async function insertMinimalPreset(db: DataSource, accountId: string): Promise<string> {
  const id = newId();
  await db.query(`INSERT INTO alert_presets (id, account_id, name, temperature_min, temperature_max) VALUES ($1, $2, 'test preset', 2, 8)`, [id, accountId]);
  return id;
}
