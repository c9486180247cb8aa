import type { DataSource } from 'typeorm';
import { defaultIngestCollaborators, TelemetryIngestService } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { createRecord, localPath } from '../support/catalogue';
import { backdateLifecycle, point, setThresholds } from '../support/devices';
import { createShipment, shipmentBody, shipmentWorld, type ShipmentWorld } from '../support/shipments';

const HOUR = 3_600_000;
const MIN = 60_000;

describe('Shipment tracking: the window, attach/detach boundaries, downsampling, late points', () => {
  let api: TestApi;
  let world: ShipmentWorld;
  let db: DataSource;
  let ingest: TelemetryIngestService;
  let shipmentId: number;
  let A: string;
  let B: string;
  let C: string;
  const T0 = new Date(Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR);
  const at = (minutes: number): Date => new Date(T0.getTime() + minutes * MIN);
  const tracking = (query = '') => api.http.get(`${API}/shipments/${shipmentId}/tracking/${query}`).set(world.tenant.auth).expect(200);

  beforeAll(async () => {
    api = await startApi();
    world = await shipmentWorld(api, 3);
    db = world.db;
    ingest = new TelemetryIngestService(db, defaultIngestCollaborators());
    [A, B, C] = world.devices;
    for (const id of world.devices) await backdateLifecycle(db, id, new Date(T0.getTime() - 24 * HOUR));
    shipmentId = (await createShipment(api, world.tenant, shipmentBody(world.refs, [A, B]))).id;
    // History: the shipment started at T0 with A; B joined at T0+20 and left at T0+40.
    await db.query(`UPDATE shipments SET started_at = $2 WHERE id = $1`, [shipmentId, T0]);
    await db.query(`UPDATE shipment_devices SET attached_at = $2 WHERE shipment_id = $1 AND device_id = $3`, [shipmentId, T0, A]);
    await db.query(`UPDATE shipment_devices SET attached_at = $2, detached_at = $3 WHERE shipment_id = $1 AND device_id = $4`, [shipmentId, at(20), at(40), B]);
    await ingest.ingest([
      point(A, at(-5), { temperature: 4 }),
      point(A, at(0), { temperature: 5 }),
      point(A, at(10), { temperature: 6 }),
      point(A, at(50), { temperature: 7, latitude: 41, longitude: 29 }),
      point(B, at(10), { temperature: 3 }),
      point(B, at(20), { temperature: 8 }),
      point(B, at(30), { temperature: 9 }),
      point(B, at(40), { temperature: 10 }),
      point(B, at(50), { temperature: 11 }),
      point(C, at(30), { temperature: 20 }),
    ]);
  });
  afterAll(() => api.close());

  it('returns each device’s points only while attached, attach time included and detach time excluded, ordered by time then device', async () => {
    const res = await tracking();
    expect(res.body.data.map((p: { device_id: string; recorded_at: string; temperature: number }) => [p.device_id, p.recorded_at, p.temperature])).toEqual([
      [A, at(0).toISOString(), 5],
      [A, at(10).toISOString(), 6],
      [B, at(20).toISOString(), 8],
      [B, at(30).toISOString(), 9],
      [A, at(50).toISOString(), 7],
    ]);
    expect(res.body.data[4]).toEqual({ device_id: A, recorded_at: at(50).toISOString(), temperature: 7, humidity: null, light: null, shock: null, battery: null, latitude: 41, longitude: 29 });
    const detail = await api.http.get(`${API}/shipments/${shipmentId}/`).set(world.tenant.auth).expect(200);
    expect(detail.body.summary).toEqual({ point_count: 5, temperature: { min: 5, max: 9, avg: 7 }, open_alarms: 0 });
  });

  it('pages by (recorded_at, device_id) without gaps or repeats, and narrows with from, to and device_id', async () => {
    const seen: string[] = [];
    let res = await tracking('?limit=2');
    for (;;) {
      seen.push(...res.body.data.map((p: { device_id: string; recorded_at: string }) => `${p.recorded_at}|${p.device_id}`));
      if (!res.body.links.next) break;
      res = await api.http.get(localPath(res.body.links.next)).set(world.tenant.auth).expect(200);
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual([...seen].sort());
    const narrowed = await tracking(`?from=${encodeURIComponent(at(15).toISOString())}&to=${encodeURIComponent(at(50).toISOString())}`);
    expect(narrowed.body.data.map((p: { temperature: number }) => p.temperature)).toEqual([8, 9]);
    const onlyB = await tracking(`?device_id=${B}`);
    expect(onlyB.body.data.map((p: { temperature: number }) => p.temperature)).toEqual([8, 9]);
    const never = await api.http.get(`${API}/shipments/${shipmentId}/tracking/?device_id=${C}`).set(world.tenant.auth).expect(400);
    expect(never.body.errors).toEqual([expect.objectContaining({ field: 'device_id', code: 'not_in_shipment' })]);
    await api.http.get(`${API}/shipments/${shipmentId}/tracking/?from=${encodeURIComponent(at(20).toISOString())}&to=${encodeURIComponent(at(10).toISOString())}`).set(world.tenant.auth).expect(400);
  });

  it('downsamples exactly like device telemetry (same buckets for one device over the same range)', async () => {
    const range = `from=${encodeURIComponent(at(0).toISOString())}&to=${encodeURIComponent(at(60).toISOString())}`;
    const all = await tracking(`?bucket=15m&${range}`);
    expect(all.body.data.map((b: { bucket_start: string; count: number; temperature: { min: number; avg: number; max: number } | null }) => [b.bucket_start, b.count, b.temperature])).toEqual([
      [at(0).toISOString(), 2, { min: 5, avg: 5.5, max: 6 }],
      [at(15).toISOString(), 1, { min: 8, avg: 8, max: 8 }],
      [at(30).toISOString(), 1, { min: 9, avg: 9, max: 9 }],
      [at(45).toISOString(), 1, { min: 7, avg: 7, max: 7 }],
    ]);
    const trackedA = await tracking(`?bucket=15m&device_id=${A}&${range}`);
    const deviceA = await api.http.get(`${API}/devices/${A}/telemetry/?bucket=15m&${range}`).set(world.tenant.auth).expect(200);
    expect(trackedA.body.data).toEqual(deviceA.body.data);
    const paged = await tracking(`?bucket=15m&limit=3&${range}`);
    expect(paged.body.data).toHaveLength(3);
    const rest = await api.http.get(localPath(paged.body.links.next)).set(world.tenant.auth).expect(200);
    expect(rest.body.data.map((b: { bucket_start: string }) => b.bucket_start)).toEqual([at(45).toISOString()]);
  });

  it('raises alarms with the shipment id while a device travels, and counts them in the detail', async () => {
    await setThresholds(db, A, { temperature_max: 8 });
    const result = await ingest.ingest([point(A, new Date(Date.now() - MIN), { temperature: 12 })]);
    expect(result.alarms).toEqual([expect.objectContaining({ type: 'TEMPERATURE', shipment_id: shipmentId })]);
    const detail = await api.http.get(`${API}/shipments/${shipmentId}/`).set(world.tenant.auth).expect(200);
    expect(detail.body.summary.open_alarms).toBe(1);
    const alarms = await api.http.get(`${API}/alarms/?shipment_id=${shipmentId}`).set(world.tenant.auth).expect(200);
    expect(alarms.body.data).toHaveLength(1);
  });

  it('freezes the window at completion: points recorded after it never appear, even when they arrive later', async () => {
    const done = await api.http.post(`${API}/shipments/${shipmentId}/complete/`).set(world.tenant.auth).expect(200);
    const completedAt = new Date(done.body.completed_at);
    const before = await tracking('?limit=1000');
    await ingest.ingest([
      point(A, new Date(completedAt.getTime() - 1000), { temperature: 6.5 }),
      point(A, completedAt, { temperature: 30 }),
      point(A, new Date(completedAt.getTime() + 1000), { temperature: 31 }),
    ]);
    const after = await tracking('?limit=1000');
    expect(after.body.data.length).toBe(before.body.data.length + 1);
    const temps = after.body.data.map((p: { temperature: number }) => p.temperature);
    expect(temps).toContain(6.5);
    expect(temps).not.toContain(30);
    expect(temps).not.toContain(31);
    const device = await api.http
      .get(`${API}/devices/${A}/telemetry/?from=${encodeURIComponent(new Date(completedAt.getTime() - MIN).toISOString())}&to=${encodeURIComponent(new Date(completedAt.getTime() + MIN).toISOString())}`)
      .set(world.tenant.auth)
      .expect(200);
    expect(device.body.data.map((p: { temperature: number }) => p.temperature)).toEqual([6.5, 30, 31]);
    // and a later alarm of the device no longer belongs to the shipment
    const result = await ingest.ingest([point(A, new Date(completedAt.getTime() + 2000), { shock: 50 })]);
    expect(result.alarms).toEqual([]);
    await setThresholds(db, A, { shock_max: 10 });
    const shock = await ingest.ingest([point(A, new Date(completedAt.getTime() + 3000), { shock: 50 })]);
    expect(shock.alarms).toEqual([expect.objectContaining({ type: 'SHOCK', shipment_id: null })]);
  });
});

describe('Geofence automation of the route locations', () => {
  let api: TestApi;
  let world: ShipmentWorld;
  let db: DataSource;
  let ingest: TelemetryIngestService;
  const NOW = Math.floor(Date.now() / 1000) * 1000;
  const ago = (minutes: number): Date => new Date(NOW - minutes * MIN);
  const off = { record_event: false, raise_alarm: false };

  beforeAll(async () => {
    api = await startApi();
    world = await shipmentWorld(api, 3, undefined, 'Geofenced');
    db = world.db;
    ingest = new TelemetryIngestService(db, defaultIngestCollaborators());
    for (const id of world.devices) await backdateLifecycle(db, id, ago(600));
  });
  afterAll(() => api.close());

  it('records exits and entries, raises the location’s alarm, marks the arrival and completes the shipment once', async () => {
    const { tenant } = world;
    const circle = (latitude: number, longitude: number) => ({ type: 'circle', center: { latitude, longitude }, radius_m: 1000 });
    const origin = await createRecord(api, tenant, 'locations', {
      name: 'Depot',
      kind: 'warehouse',
      geofence: circle(41, 29),
      automation: { on_entry: off, on_exit: { record_event: true, raise_alarm: true, alarm_severity: 'CRITICAL' } },
    });
    const hub = await createRecord(api, tenant, 'locations', { name: 'Hub', kind: 'port', geofence: circle(40, 30), automation: { on_entry: { record_event: true } } });
    const destination = await createRecord(api, tenant, 'locations', {
      name: 'Clinic',
      kind: 'customer_site',
      geofence: { type: 'polygon', polygon: { type: 'Polygon', coordinates: [[[32.8, 39.9], [32.9, 39.9], [32.9, 40.0], [32.8, 40.0], [32.8, 39.9]]] } },
      automation: { on_entry: { record_event: true, mark_arrival: true, complete_shipment: true } },
    });
    const [A, B, C] = world.devices;
    const shipment = await createShipment(
      api,
      tenant,
      shipmentBody(world.refs, [A, B], {
        origin_location_id: origin.id,
        destination_location_id: destination.id,
        transport_legs: [
          { mode: 'road', from_location_id: origin.id, to_location_id: hub.id },
          { mode: 'road', from_location_id: hub.id, to_location_id: destination.id },
        ],
      }),
    );
    const inDepot = { latitude: 41, longitude: 29 };
    const outside = { latitude: 41.2, longitude: 29 };
    const inHub = { latitude: 40.001, longitude: 30.001 };
    const inClinic = { latitude: 39.95, longitude: 32.85 };

    await ingest.ingest([point(A, ago(50), inDepot), point(B, ago(50), inDepot), point(C, ago(50), inDepot)]);
    const left = await ingest.ingest([point(A, ago(40), outside), point(C, ago(40), outside)]);
    expect(left.alarms).toEqual([expect.objectContaining({ device_id: A, type: 'GEOFENCE', source: 'GEOFENCE', severity: 'CRITICAL', shipment_id: shipment.id, message: 'Left geofence Depot.' })]);
    await ingest.ingest([point(A, ago(30), inHub)]);
    let detail = await api.http.get(`${API}/shipments/${shipment.id}/`).set(tenant.auth).expect(200);
    expect(detail.body.events.map((e: { kind: string; location_id: string }) => [e.kind, e.location_id])).toEqual([
      ['geofence_exit', origin.id],
      ['geofence_entry', hub.id],
    ]);
    expect(detail.body.active_transport_leg).toMatchObject({ index: 1, from_location_id: hub.id });
    expect(detail.body.transport_legs[0].completed).toBe(true);

    // Both devices reach the clinic in the same batch: one arrival, one completion, one event.
    await ingest.ingest([point(A, ago(20), inClinic), point(B, ago(20), inClinic)]);
    detail = await api.http.get(`${API}/shipments/${shipment.id}/`).set(tenant.auth).expect(200);
    expect(detail.body).toMatchObject({ status: 'completed', arrived_at: ago(20).toISOString(), active_transport_leg: null });
    expect(detail.body.events.filter((e: { kind: string }) => e.kind === 'arrival')).toHaveLength(1);
    const [row] = await db.query(`SELECT completed_by FROM shipments WHERE id = $1`, [shipment.id]);
    expect(row.completed_by).toBe('geofence');
    const completions = await db.query(`SELECT envelope FROM outbox_events WHERE event_type = 'shipment.completed' AND aggregate_id = $1`, [String(shipment.id)]);
    expect(completions).toHaveLength(1);
    expect(completions[0].envelope.data).toMatchObject({ id: shipment.id, status: 'completed' });
    const [job] = await db.query(
      `SELECT (SELECT count(*) FROM shipment_report_jobs WHERE shipment_id = $1)::int + (SELECT count(*) FROM reports WHERE shipment_id = $1)::int AS n`,
      [shipment.id],
    );
    expect(job.n).toBeGreaterThan(0);

    // Later moves change nothing: the devices are no longer in the shipment.
    await ingest.ingest([point(A, ago(10), outside), point(A, ago(5), inClinic)]);
    const later = await api.http.get(`${API}/shipments/${shipment.id}/`).set(tenant.auth).expect(200);
    expect(later.body.events).toEqual(detail.body.events);
    expect((await db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'shipment.completed' AND aggregate_id = $1`, [String(shipment.id)]))[0].n).toBe(1);
    // C was never in the shipment: leaving the depot raised nothing for it
    expect((await db.query(`SELECT count(*)::int AS n FROM alarms WHERE device_id = $1`, [C]))[0].n).toBe(0);
  });
});
