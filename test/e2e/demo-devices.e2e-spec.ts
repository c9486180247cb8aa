import type { DataSource } from 'typeorm';
import { defaultIngestCollaborators, TelemetryIngestService } from '@app/domain';
import type { DemoFixture } from '../../apps/cli/src/demo/demo-context';
import { seedDemo } from '../../apps/cli/src/demo/demo-seed';
import { API, startApi, type TestApi } from '../support/api';
import { dataSourceOf } from '../support/fixtures';

interface DemoDevices {
  primary: string[];
  in_shipment: string[];
  unapproved: string;
  deleted: string;
  other: string[];
  transferred: string;
}

describe('demo:seed devices (DESIGN §7)', () => {
  let api: TestApi;
  let db: DataSource;
  let fixture: DemoFixture;
  let devices: DemoDevices;
  let primaryAuth: { Authorization: string };
  let otherAuth: { Authorization: string };

  const tokenOf = async (credential: { client_id: string; client_secret: string }) => {
    const res = await api.raw.post(`${API}/oauth/token/`).type('form').send({ grant_type: 'client_credentials', ...credential }).expect(200);
    return { Authorization: `Bearer ${res.body.access_token as string}` };
  };

  beforeAll(async () => {
    api = await startApi();
    db = dataSourceOf(api.app);
    fixture = await seedDemo(db, api.config.secretsKey, api.config.publicBaseUrl);
    devices = fixture.devices as DemoDevices;
    const { single, other } = fixture.credentials;
    primaryAuth = await tokenOf(single);
    otherAuth = await tokenOf(other);
  });
  afterAll(() => api.close());

  it('prints the devices section and is idempotent', async () => {
    expect(devices.primary).toHaveLength(6);
    expect(devices.in_shipment).toHaveLength(3);
    expect(devices.other).toHaveLength(2);
    expect(devices.primary).toContain(devices.transferred);
    const counts = async () => (await db.query(`SELECT (SELECT count(*) FROM devices) + (SELECT count(*) FROM device_lifecycles) + (SELECT count(*) FROM alarms) + (SELECT count(*) FROM device_maintenance_records) AS n`))[0].n;
    const before = await counts();
    const again = await seedDemo(db, api.config.secretsKey, api.config.publicBaseUrl);
    expect(again.devices).toEqual(fixture.devices);
    expect(await counts()).toBe(before);
  });

  it('shows primary its nine approved devices, each with 7 days of 5-minute telemetry and a 2–8 °C threshold', async () => {
    const list = await api.http.get(`${API}/devices/?limit=50`).set(primaryAuth).expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id).sort()).toEqual([...devices.primary, ...devices.in_shipment].sort());
    for (const device of list.body.data) {
      expect(device.settings.thresholds).toMatchObject({ temperature_min: 2, temperature_max: 8 });
    }
    const [{ minimum }] = await db.query(
      `SELECT min(n)::int AS minimum FROM (SELECT count(*) AS n FROM telemetry_points WHERE device_id = ANY($1::uuid[]) AND recorded_at >= now() - interval '7 days' GROUP BY device_id) c`,
      [[...devices.primary, ...devices.in_shipment]],
    );
    expect(minimum).toBeGreaterThanOrEqual(2015);
    const day = await api.http.get(`${API}/devices/${devices.primary[0]}/telemetry/?bucket=1h`).set(primaryAuth).expect(200);
    expect(day.body.data.filter((b: { count: number }) => b.count === 12).length).toBeGreaterThanOrEqual(22);
    const status = await api.http.get(`${API}/devices/${devices.primary[0]}/status/`).set(primaryAuth).expect(200);
    expect(status.body.connectivity).toBe('online');
  });

  it('hides the unapproved, deleted and other account’s devices from primary, and primary’s from other', async () => {
    for (const id of [devices.unapproved, devices.deleted, ...devices.other]) await api.http.get(`${API}/devices/${id}/`).set(primaryAuth).expect(404);
    const others = await api.http.get(`${API}/devices/`).set(otherAuth).expect(200);
    expect(others.body.data.map((d: { id: string }) => d.id).sort()).toEqual([...devices.other].sort());
  });

  it('has maintenance records with costs (not shown) and an unresolved alarm for primary; the previous owner’s history stays hidden', async () => {
    const [{ costed }] = await db.query(`SELECT count(*)::int AS costed FROM device_maintenance_records WHERE cost_amount > 0 AND device_id = ANY($1::uuid[])`, [
      [...devices.primary, ...devices.in_shipment],
    ]);
    expect(costed).toBeGreaterThanOrEqual(9);
    const maintenance = await api.http.get(`${API}/devices/${devices.transferred}/maintenance/`).set(primaryAuth).expect(200);
    expect(maintenance.body.data.map((m: { type: string }) => m.type)).toEqual(['calibration']);
    const open = await api.http.get(`${API}/alarms/?resolved=false`).set(primaryAuth).expect(200);
    expect(open.body.data.length).toBeGreaterThanOrEqual(1);
    expect((await api.http.get(`${API}/devices/${devices.transferred}/alarms/`).set(primaryAuth).expect(200)).body.data).toEqual([]);
    const telemetry = await api.http
      .get(`${API}/devices/${devices.transferred}/telemetry/`)
      .query({ from: new Date(Date.now() - 50 * 86_400_000).toISOString(), to: new Date(Date.now() - 25 * 86_400_000).toISOString(), bucket: '1d' })
      .set(primaryAuth)
      .expect(200);
    expect(telemetry.body.data.reduce((sum: number, b: { count: number }) => sum + b.count, 0)).toBe(0);
    const [{ previous }] = await db.query(
      `SELECT count(*)::int AS previous FROM telemetry_points t JOIN device_lifecycles l ON l.id = t.lifecycle_id WHERE t.device_id = $1 AND l.ended_at IS NOT NULL`,
      [devices.transferred],
    );
    expect(previous).toBe(288);
  });

  it('raises an alarm when a 95 °C point arrives for a primary device', async () => {
    const result = await new TelemetryIngestService(db, defaultIngestCollaborators()).ingest([{ device_id: devices.primary[0], recorded_at: new Date().toISOString(), temperature: 95 }]);
    expect(result.alarms).toEqual([expect.objectContaining({ type: 'TEMPERATURE', device_id: devices.primary[0] })]);
  });
});
