import type { DataSource } from 'typeorm';
import { raiseAlarm } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { localPath, newKey } from '../support/catalogue';
import { createTenant, type Tenant } from '../support/fixtures';
import { createShipment, shipmentBody, shipmentWorld, type ShipmentWorld } from '../support/shipments';

type Move = [string, string, number, string, (id: number) => { method: 'get' | 'put' | 'delete' | 'post'; path: string; body?: unknown }];

describe('Shipment lifecycle (spec §3, §7.8), update, list, tenancy and in-use rules', () => {
  let api: TestApi;
  let world: ShipmentWorld;
  let db: DataSource;
  let stranger: Tenant;
  let next = 0;

  beforeAll(async () => {
    api = await startApi();
    world = await shipmentWorld(api, 40);
    db = world.db;
    stranger = await createTenant(api.app, undefined, 'Stranger');
  });
  afterAll(() => api.close());

  /** A fresh device each time: devices of completed or deleted shipments would do too, but this keeps rows apart. */
  const device = (): string => world.devices[next++];
  const active = async (extra: Record<string, unknown> = {}) => createShipment(api, world.tenant, shipmentBody(world.refs, [device()], extra));
  const completed = async () => {
    const shipment = await active();
    await api.http.post(`${API}/shipments/${shipment.id}/complete/`).set(world.tenant.auth).expect(200);
    return shipment;
  };
  const deleted = async () => {
    const shipment = await active();
    await api.http.delete(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).expect(204);
    return shipment;
  };
  const replacement = () => shipmentBody(world.refs, [device()], { reference: 'REPLACED' });
  const share = { max_views: 5, expires_in_hours: 2 };

  const moves: Move[] = [
    ['active', 'PUT', 200, '-', (id) => ({ method: 'put', path: `/shipments/${id}/`, body: replacement() })],
    ['active', 'DELETE', 204, '-', (id) => ({ method: 'delete', path: `/shipments/${id}/` })],
    ['active', 'complete', 200, '-', (id) => ({ method: 'post', path: `/shipments/${id}/complete/` })],
    ['active', 'share PUT', 200, '-', (id) => ({ method: 'put', path: `/shipments/${id}/share/`, body: share })],
    ['completed', 'GET', 200, '-', (id) => ({ method: 'get', path: `/shipments/${id}/` })],
    ['completed', 'PUT', 409, 'shipment_not_active', (id) => ({ method: 'put', path: `/shipments/${id}/`, body: replacement() })],
    ['completed', 'DELETE', 409, 'shipment_completed', (id) => ({ method: 'delete', path: `/shipments/${id}/` })],
    ['completed', 'complete', 409, 'shipment_not_active', (id) => ({ method: 'post', path: `/shipments/${id}/complete/` })],
    ['completed', 'share PUT', 200, '-', (id) => ({ method: 'put', path: `/shipments/${id}/share/`, body: share })],
    ['completed', 'tracking', 200, '-', (id) => ({ method: 'get', path: `/shipments/${id}/tracking/` })],
    ['deleted', 'GET', 404, 'not_found', (id) => ({ method: 'get', path: `/shipments/${id}/` })],
    ['deleted', 'PUT', 404, 'not_found', (id) => ({ method: 'put', path: `/shipments/${id}/`, body: replacement() })],
    ['deleted', 'DELETE', 404, 'not_found', (id) => ({ method: 'delete', path: `/shipments/${id}/` })],
    ['deleted', 'complete', 404, 'not_found', (id) => ({ method: 'post', path: `/shipments/${id}/complete/` })],
    ['deleted', 'share GET', 404, 'not_found', (id) => ({ method: 'get', path: `/shipments/${id}/share/` })],
    ['deleted', 'tracking', 404, 'not_found', (id) => ({ method: 'get', path: `/shipments/${id}/tracking/` })],
  ];

  it.each(moves)('%s shipment, %s → %i %s', async (state, _move, status, code, request) => {
    const shipment = state === 'active' ? await active() : state === 'completed' ? await completed() : await deleted();
    const { method, path, body } = request(shipment.id);
    const res = await api.http[method](`${API}${path}`).set(world.tenant.auth).send(body as object);
    expect(res.status).toBe(status);
    if (code !== '-') expect(res.body.code).toBe(code);
    if (state === 'completed' && status === 409) {
      const after = await api.http.get(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).expect(200);
      expect(after.body).toMatchObject({ status: 'completed', reference: 'REF-1', completed_at: shipment.completed_at ?? after.body.completed_at });
    }
  });

  it('deleting detaches the devices (eligible again), revokes the share, keeps the id out of reuse and the alarms as they were', async () => {
    const d = device();
    const shipment = await createShipment(api, world.tenant, shipmentBody(world.refs, [d]));
    await api.http.put(`${API}/shipments/${shipment.id}/share/`).set(world.tenant.auth).send(share).expect(200);
    const [lifecycle] = await db.query(`SELECT id FROM device_lifecycles WHERE device_id = $1 AND ended_at IS NULL`, [d]);
    const alarm = await db.transaction((m) =>
      raiseAlarm(m, { accountId: world.tenant.accountId, deviceId: d, lifecycleId: lifecycle.id, shipmentId: shipment.id, type: 'SHOCK', severity: 'CRITICAL', source: 'DEVICE', message: 'Dropped', triggeredAt: null }),
    );
    await api.http.delete(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).expect(204);
    const [row] = await db.query(`SELECT deleted_at, (SELECT revoked_at FROM shipment_shares WHERE shipment_id = $1) AS revoked_at FROM shipments WHERE id = $1`, [shipment.id]);
    expect(row.deleted_at).not.toBeNull();
    expect(row.revoked_at).not.toBeNull();
    const again = await createShipment(api, world.tenant, shipmentBody(world.refs, [d]));
    expect(again.id).toBeGreaterThan(shipment.id);
    const list = await api.http.get(`${API}/shipments/?limit=200`).set(world.tenant.auth).expect(200);
    expect(list.body.data.map((s: { id: number }) => s.id)).not.toContain(shipment.id);
    const alarms = await api.http.get(`${API}/alarms/?shipment_id=${shipment.id}`).set(world.tenant.auth).expect(200);
    expect(alarms.body.data).toEqual([expect.objectContaining({ id: alarm?.id, shipment_id: shipment.id, resolved: false })]);
  });

  it('exactly one of many concurrent completions succeeds, with exactly one shipment.completed event', async () => {
    const shipment = await active();
    const results = await Promise.all(Array.from({ length: 8 }, () => api.http.post(`${API}/shipments/${shipment.id}/complete/`).set(world.tenant.auth)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('shipment_not_active');
    const winner = results.find((r) => r.status === 200)!.body;
    expect(winner).toMatchObject({ status: 'completed', active_transport_leg: null });
    expect(winner.devices.every((d: { detached_at: string }) => d.detached_at === winner.completed_at)).toBe(true);
    const events = await db.query(`SELECT envelope FROM outbox_events WHERE event_type = 'shipment.completed' AND aggregate_id = $1`, [String(shipment.id)]);
    expect(events).toHaveLength(1);
    expect(events[0].envelope.data).toEqual(winner);
    const detail = await api.http.get(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).expect(200);
    expect(detail.body).toEqual({ ...winner, summary: detail.body.summary });
  });

  it('PUT replaces route and planning, detaches devices left out and attaches new ones, keeping each attachment’s times', async () => {
    const [a, b, c] = [device(), device(), device()];
    const shipment = await createShipment(api, world.tenant, shipmentBody(world.refs, [a, b]));
    const before = Date.now();
    const res = await api.http
      .put(`${API}/shipments/${shipment.id}/`)
      .set(world.tenant.auth)
      .send(shipmentBody(world.refs, [b, c], { reference: 'R-2', name: 'Renamed', origin_location_id: world.refs.hub, carrier_id: world.refs.roadCarrier, planned_arrival_at: '2031-01-01T00:00:00Z' }))
      .expect(200);
    expect(res.body).toMatchObject({ reference: 'R-2', name: 'Renamed', origin: { id: world.refs.hub, name: 'Hub' }, carrier: { id: world.refs.roadCarrier }, receiver: null, device_ids: [b, c] });
    const rows = res.body.devices as Array<{ device_id: string; attached_at: string; detached_at: string | null }>;
    expect(rows.map((r) => r.device_id)).toEqual([a, b, c]);
    expect(rows[0].detached_at).not.toBeNull();
    expect(new Date(rows[0].detached_at as string).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(rows[1]).toMatchObject({ attached_at: shipment.started_at, detached_at: null });
    expect(rows[2].detached_at).toBeNull();
    expect(new Date(rows[2].attached_at).getTime()).toBeGreaterThan(new Date(shipment.started_at as string).getTime());
    // the detached device may travel elsewhere now; the attached ones may not
    await createShipment(api, world.tenant, shipmentBody(world.refs, [a], { reference: 'ELSEWHERE' }));
    const busy = await api.http.post(`${API}/shipments/create/`).set(world.tenant.auth).set('Idempotency-Key', newKey()).send(shipmentBody(world.refs, [c])).expect(400);
    expect(busy.body.errors).toEqual([expect.objectContaining({ field: 'device_ids.0', code: 'device_in_active_shipment' })]);
    // PUT refusals
    const six = Array.from({ length: 6 }, () => device());
    expect((await api.http.put(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).send(shipmentBody(world.refs, six)).expect(400)).body.code).toBe('too_many_devices');
    const intoBusy = await api.http.put(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).send(shipmentBody(world.refs, [b, a])).expect(400);
    expect(intoBusy.body).toMatchObject({ code: 'device_not_eligible', errors: [expect.objectContaining({ field: 'device_ids.1', code: 'device_in_active_shipment' })] });
    const { origin_location_id: _omit, ...missing } = shipmentBody(world.refs, [b]);
    expect((await api.http.put(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).send(missing).expect(400)).body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'origin_location_id' })]),
    );
    await api.http.put(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).send({ ...shipmentBody(world.refs, [b]), template_id: null }).expect(400);
    const unchanged = await api.http.get(`${API}/shipments/${shipment.id}/`).set(world.tenant.auth).expect(200);
    expect(unchanged.body.device_ids).toEqual([b, c]);
  });

  it('lists newest first, filters by status and searches reference, name, receiver, carrier and device label; pages by id', async () => {
    const owner = await shipmentWorld(api, 4, undefined, 'Lister');
    const { tenant, refs, devices } = owner;
    await db.query(`UPDATE device_lifecycles SET label = 'Blue reefer box' WHERE device_id = $1`, [devices[3]]);
    const s1 = await createShipment(api, tenant, shipmentBody(refs, [devices[0]], { reference: 'PO-ALPHA', name: 'Frozen fish' }));
    const s2 = await createShipment(api, tenant, shipmentBody(refs, [devices[1]], { reference: 'PO-BETA', name: 'Vaccines 50%_off', receiver_id: refs.receiver }));
    const s3 = await createShipment(api, tenant, shipmentBody(refs, [devices[2]], { reference: 'PO-GAMMA', name: 'Insulin', carrier_id: refs.seaCarrier }));
    const s4 = await createShipment(api, tenant, shipmentBody(refs, [devices[3]], { reference: 'PO-DELTA', name: 'Plasma' }));
    await api.http.post(`${API}/shipments/${s1.id}/complete/`).set(tenant.auth).expect(200);
    const ids = async (query: string) => (await api.http.get(`${API}/shipments/?${query}`).set(tenant.auth).expect(200)).body.data.map((s: { id: number }) => s.id);
    expect(await ids('')).toEqual([s4.id, s3.id, s2.id, s1.id]);
    expect(await ids('status=completed')).toEqual([s1.id]);
    expect(await ids('status=active')).toEqual([s4.id, s3.id, s2.id]);
    expect(await ids('search=po-alpha')).toEqual([s1.id]);
    expect(await ids('search=insulin')).toEqual([s3.id]);
    expect(await ids('search=hospital')).toEqual([s2.id]);
    expect(await ids('search=sea%20co')).toEqual([s3.id]);
    expect(await ids('search=BLUE%20REEFER')).toEqual([s4.id]);
    expect(await ids(`search=${encodeURIComponent('50%_')}`)).toEqual([s2.id]);
    expect(await ids(`search=${encodeURIComponent('%')}`)).toEqual([s2.id]);
    expect(await ids('search=nothing-like-this')).toEqual([]);
    const first = await api.http.get(`${API}/shipments/?limit=3`).set(tenant.auth).expect(200);
    expect(first.body.data.map((s: { id: number }) => s.id)).toEqual([s4.id, s3.id, s2.id]);
    expect(first.body.data[0]).toEqual(expect.objectContaining({ id: s4.id, device_ids: [devices[3]], origin: { id: refs.origin, name: 'Origin' } }));
    const second = await api.http.get(localPath(first.body.links.next)).set(tenant.auth).expect(200);
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: s1.id })], links: { next: null } });
    for (const bad of ['status=open', 'search=', 'limit=0']) await api.http.get(`${API}/shipments/?${bad}`).set(tenant.auth).expect(400);
  });

  it('answers 404 to another tenant on every shipment route and changes nothing', async () => {
    const shipment = await active();
    const id = shipment.id;
    const routes: Array<{ method: 'get' | 'put' | 'delete' | 'post'; path: string; body?: unknown }> = [
      { method: 'get', path: `/shipments/${id}/` },
      { method: 'put', path: `/shipments/${id}/`, body: shipmentBody(world.refs, [device()]) },
      { method: 'delete', path: `/shipments/${id}/` },
      { method: 'post', path: `/shipments/${id}/complete/` },
      { method: 'get', path: `/shipments/${id}/share/` },
      { method: 'put', path: `/shipments/${id}/share/`, body: share },
      { method: 'delete', path: `/shipments/${id}/share/` },
      { method: 'get', path: `/shipments/${id}/tracking/` },
    ];
    for (const route of routes) {
      const res = await api.http[route.method](`${API}${route.path}`).set(stranger.auth).send(route.body as object);
      expect({ route: route.path, method: route.method, status: res.status, code: res.body.code }).toEqual({ route: route.path, method: route.method, status: 404, code: 'not_found' });
    }
    expect((await api.http.get(`${API}/shipments/`).set(stranger.auth).expect(200)).body.data).toEqual([]);
    const mine = await api.http.get(`${API}/shipments/${id}/`).set(world.tenant.auth).expect(200);
    expect(mine.body).toMatchObject({ status: 'active', reference: 'REF-1' });
    expect((await api.http.get(`${API}/shipments/${id}/share/`).set(world.tenant.auth).expect(200)).body.enabled).toBe(false);
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999', '2147483648']) await api.http.get(`${API}/shipments/${bad}/`).set(world.tenant.auth).expect(404);
  });

  it('requires the operation’s scopes', async () => {
    const readOnly = await createTenant(api.app, ['shipments:read', 'shipments:tracking:read']);
    await api.http.post(`${API}/shipments/create/`).set(readOnly.auth).set('Idempotency-Key', newKey()).send({}).expect(403);
    await api.http.post(`${API}/shipments/1/complete/`).set(readOnly.auth).expect(403);
    await api.http.get(`${API}/shipments/1/share/`).set(readOnly.auth).expect(403);
    const writer = await createTenant(api.app, ['shipments:write']);
    await api.http.post(`${API}/shipments/1/complete/`).set(writer.auth).expect(403);
    const sharer = await createTenant(api.app, ['shipments:share']);
    await api.http.get(`${API}/shipments/1/share/`).set(sharer.auth).expect(403);
    await api.http.get(`${API}/shipments/1/tracking/`).set(sharer.auth).expect(403);
  });

  describe('catalogue records in use by an active shipment (409 in_use), free again once it completes', () => {
    it('locations (route and legs), carriers (main and leg), receivers, alert presets', async () => {
      const owner = await shipmentWorld(api, 2, undefined, 'In use');
      const { tenant, refs, devices } = owner;
      const leg = await api.http
        .post(`${API}/locations/`)
        .set(tenant.auth)
        .set('Idempotency-Key', newKey())
        .send({ name: 'Leg end', kind: 'port', geofence: { type: 'circle', center: { latitude: 1, longitude: 1 }, radius_m: 100 } })
        .expect(201);
      const shipment = await createShipment(
        api,
        tenant,
        shipmentBody(refs, [devices[0]], {
          receiver_id: refs.receiver,
          alert_preset_id: refs.preset,
          transport_legs: [{ mode: 'sea', carrier_id: refs.seaCarrier, to_location_id: leg.body.id }],
        }),
      );
      const targets: Array<[string, string]> = [
        ['locations', refs.origin],
        ['locations', refs.destination],
        ['locations', leg.body.id],
        ['carriers', refs.seaCarrier],
        ['receivers', refs.receiver],
        ['alert-presets', refs.preset],
      ];
      for (const [collection, id] of targets) {
        const res = await api.http.delete(`${API}/${collection}/${id}/`).set(tenant.auth).expect(409);
        expect(res.body).toMatchObject({ code: 'in_use', detail: expect.stringContaining('an active shipment') });
      }
      await api.http.post(`${API}/shipments/${shipment.id}/complete/`).set(tenant.auth).expect(200);
      for (const [collection, id] of targets) await api.http.delete(`${API}/${collection}/${id}/`).set(tenant.auth).expect(204);
      const history = await api.http.get(`${API}/shipments/${shipment.id}/`).set(tenant.auth).expect(200);
      expect(history.body).toMatchObject({ origin: { id: refs.origin, name: null }, receiver: { id: refs.receiver, name: null }, status: 'completed' });
    });

    it('alert presets named by a device’s current settings', async () => {
      const owner = await shipmentWorld(api, 1, undefined, 'Preset user');
      const { tenant, refs, devices } = owner;
      await api.http.patch(`${API}/devices/${devices[0]}/settings/`).set(tenant.auth).send({ alert_preset_id: refs.preset }).expect(200);
      const res = await api.http.delete(`${API}/alert-presets/${refs.preset}/`).set(tenant.auth).expect(409);
      expect(res.body).toMatchObject({ code: 'in_use', detail: expect.stringContaining('the settings of a device') });
      await api.http.patch(`${API}/devices/${devices[0]}/settings/`).set(tenant.auth).send({ alert_preset_id: null }).expect(200);
      await api.http.delete(`${API}/alert-presets/${refs.preset}/`).set(tenant.auth).expect(204);
    });
  });
});
