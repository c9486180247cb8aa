import type { DataSource } from 'typeorm';
import type { DemoFixture } from '../../apps/cli/src/demo/demo-context';
import { seedDemo } from '../../apps/cli/src/demo/demo-seed';
import { API, startApi, type TestApi } from '../support/api';
import { dataSourceOf } from '../support/fixtures';

describe('demo:seed shipments and reports (DESIGN §7)', () => {
  let api: TestApi;
  let db: DataSource;
  let fixture: DemoFixture;
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
    primaryAuth = await tokenOf(fixture.credentials.single);
    otherAuth = await tokenOf(fixture.credentials.other);
  });
  afterAll(() => api.close());

  it('prints integer shipment ids and report ids per account, and is idempotent', async () => {
    const shipments = fixture.shipments as { active: number; completed: number };
    expect(Number.isInteger(shipments.active)).toBe(true);
    expect(Number.isInteger(shipments.completed)).toBe(true);
    const reports = fixture.reports as { primary: string[]; other: string[] };
    expect(reports.primary.length).toBeGreaterThanOrEqual(1);
    expect(reports.other.length).toBeGreaterThanOrEqual(1);
    const count = async () =>
      (await db.query(`SELECT (SELECT count(*) FROM shipments) + (SELECT count(*) FROM shipment_devices) + (SELECT count(*) FROM reports) + (SELECT count(*) FROM shipment_shares) AS n`))[0].n;
    const before = await count();
    const again = await seedDemo(db, api.config.secretsKey, api.config.publicBaseUrl);
    expect(again.shipments).toEqual(fixture.shipments);
    expect(again.reports).toEqual(fixture.reports);
    expect(again.shares).toEqual(fixture.shares);
    expect(await count()).toBe(before);
  });

  it('has an active shipment with the three in_shipment devices, an active sea leg with an AIS position, and a share link', async () => {
    const { active } = fixture.shipments as { active: number };
    const detail = await api.http.get(`${API}/shipments/${active}/`).set(primaryAuth).expect(200);
    expect(detail.body.status).toBe('active');
    expect([...detail.body.device_ids].sort()).toEqual([...(fixture.devices as { in_shipment: string[] }).in_shipment].sort());
    expect(detail.body.active_transport_leg).toMatchObject({ mode: 'sea', vessel_mmsi: '271000123' });
    expect(detail.body.ais_position).toMatchObject({ mmsi: '271000123', recorded_at: expect.any(String) });
    expect(detail.body.summary.point_count).toBeGreaterThan(3 * 24 * 12);
    const share = await api.http.get(`${API}/shipments/${active}/share/`).set(primaryAuth).expect(200);
    expect(share.body).toMatchObject({ enabled: true, url: (fixture.shares as { active: string }).active, max_views: 1000 });
    const url = new URL((fixture.shares as { active: string }).active);
    const page = await api.raw.get(url.pathname).expect(200);
    expect(page.text).toContain('Insulin Izmir');
    const list = await api.http.get(`${API}/shipments/?status=active`).set(primaryAuth).expect(200);
    expect(list.body.data.map((s: { id: number }) => s.id)).toContain(active);
  });

  it('has a completed shipment with its PDF and CSV reports; the other account has its own report', async () => {
    const { completed } = fixture.shipments as { completed: number };
    const reports = fixture.reports as { primary: string[]; other: string[] };
    const detail = await api.http.get(`${API}/shipments/${completed}/`).set(primaryAuth).expect(200);
    expect(detail.body).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    const listed = await api.http.get(`${API}/reports/?shipment_id=${completed}`).set(primaryAuth).expect(200);
    expect(listed.body.data.map((r: { id: string }) => r.id).sort()).toEqual([...reports.primary].sort());
    expect(listed.body.data.map((r: { content_type: string }) => r.content_type).sort()).toEqual(['application/pdf', 'text/csv']);
    for (const id of reports.other) {
      await api.http.get(`${API}/reports/${id}/`).set(primaryAuth).expect(404);
      const mine = await api.http.get(`${API}/reports/${id}/`).set(otherAuth).expect(200);
      expect(mine.body.subject.type).toBe('device');
    }
  });
});
