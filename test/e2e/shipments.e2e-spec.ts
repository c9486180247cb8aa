import type { DataSource } from 'typeorm';
import { detachDeviceLifecycle, DeviceAdminService } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { newKey } from '../support/catalogue';
import { createTenant, type Tenant } from '../support/fixtures';
import { registerDevice } from '../support/devices';
import { createShipment, shipmentBody, shipmentWorld, type ShipmentWorld } from '../support/shipments';

describe('Shipments: create, detail, list, update, delete, complete', () => {
  let api: TestApi;
  let world: ShipmentWorld;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi();
    world = await shipmentWorld(api, 12);
    db = world.db;
  });
  afterAll(() => api.close());

  const post = (tenant: Tenant, body: Record<string, unknown>) =>
    api.http.post(`${API}/shipments/create/`).set(tenant.auth).set('Idempotency-Key', newKey()).send(body);

  it('creates an immediately active shipment and publishes shipment.created with the detail representation', async () => {
    const { tenant, refs, devices } = world;
    const created = await createShipment(api, tenant, shipmentBody(refs, devices.slice(0, 2), { receiver_id: refs.receiver, carrier_id: refs.roadCarrier, planned_departure_at: '2030-01-01T08:00:00+03:00' }));
    expect(Number.isInteger(created.id)).toBe(true);
    expect(created).toMatchObject({
      status: 'active',
      reference: 'REF-1',
      origin: { id: refs.origin, name: 'Origin' },
      destination: { id: refs.destination, name: 'Destination' },
      receiver: { id: refs.receiver, name: 'Hospital' },
      carrier: { id: refs.roadCarrier, name: 'Road Co' },
      alert_preset: null,
      planned_departure_at: '2030-01-01T05:00:00.000Z',
      device_ids: devices.slice(0, 2),
      completed_at: null,
      ais_position: null,
      active_transport_leg: null,
      summary: { point_count: 0, temperature: null, open_alarms: 0 },
    });
    expect(created.devices).toEqual(devices.slice(0, 2).map((id) => expect.objectContaining({ device_id: id, attached_at: created.started_at, detached_at: null })));
    const detail = await api.http.get(`${API}/shipments/${created.id}/`).set(tenant.auth).expect(200);
    const [event] = await db.query(`SELECT envelope FROM outbox_events WHERE event_type = 'shipment.created' AND aggregate_id = $1`, [String(created.id)]);
    expect(event.envelope.data).toEqual({ ...detail.body, updated_at: event.envelope.data.updated_at });
    expect(event.envelope.data).toEqual(created);
  });

  it('fills route, legs, carrier, receiver and preset from a template; explicit fields (null included) override', async () => {
    const { tenant, refs, devices } = world;
    const template = await api.http
      .post(`${API}/shipment-templates/`)
      .set(tenant.auth)
      .set('Idempotency-Key', newKey())
      .send({
        name: 'Sea then road',
        origin_location_id: refs.origin,
        destination_location_id: refs.destination,
        carrier_id: refs.seaCarrier,
        receiver_id: refs.receiver,
        alert_preset_id: refs.preset,
        transport_legs: [
          { mode: 'sea', carrier_id: refs.seaCarrier, vessel_mmsi: '271000123', from_location_id: refs.origin, to_location_id: refs.hub },
          { mode: 'road', carrier_id: refs.roadCarrier, from_location_id: refs.hub, to_location_id: refs.destination },
        ],
      })
      .expect(201);
    const shipment = await createShipment(api, tenant, { reference: 'T-1', name: 'From template', template_id: template.body.id, receiver_id: null, carrier_id: refs.roadCarrier, device_ids: [devices[2]] });
    expect(shipment).toMatchObject({
      template_id: template.body.id,
      origin: { id: refs.origin },
      destination: { id: refs.destination },
      carrier: { id: refs.roadCarrier },
      receiver: null,
      alert_preset: { id: refs.preset, name: 'Vaccines' },
    });
    expect((shipment.transport_legs as Array<Record<string, unknown>>).map((l) => [l.index, l.mode, l.vessel_mmsi, l.completed])).toEqual([
      [0, 'sea', '271000123', false],
      [1, 'road', null, false],
    ]);
    expect(shipment.active_transport_leg).toMatchObject({ index: 0, mode: 'sea' });
    // the template is now in use by an active shipment
    await api.http.delete(`${API}/shipment-templates/${template.body.id}/`).set(tenant.auth).expect(409).expect((res) => expect(res.body.code).toBe('in_use'));
    await api.http.post(`${API}/shipments/${shipment.id}/complete/`).set(tenant.auth).expect(200);
    await api.http.delete(`${API}/shipment-templates/${template.body.id}/`).set(tenant.auth).expect(204);
  });

  it('refuses a route without origin/destination (no template), ids of another account naming the field, and bad legs', async () => {
    const { tenant, refs, devices } = world;
    const other = await createTenant(api.app, undefined, 'Stranger');
    const strangerLocation = (await api.http.post(`${API}/locations/`).set(other.auth).set('Idempotency-Key', newKey()).send({ name: 'Theirs', kind: 'port', geofence: { type: 'circle', center: { latitude: 1, longitude: 1 }, radius_m: 100 } }).expect(201)).body.id;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ reference: 'X', name: 'X', device_ids: [devices[3]] }, 'origin_location_id', 'required'],
      [shipmentBody(refs, [devices[3]], { destination_location_id: strangerLocation }), 'destination_location_id', 'reference_not_found'],
      [shipmentBody(refs, [devices[3]], { template_id: '0190c3a4-5e6f-7a8b-9c0d-000000000099' }), 'template_id', 'reference_not_found'],
      [shipmentBody(refs, [devices[3]], { transport_legs: [{ mode: 'road', vessel_mmsi: '271000123' }] }), 'transport_legs.0.vessel_mmsi', 'not_applicable'],
      [shipmentBody(refs, [devices[3]], { transport_legs: [{ mode: 'sea', to_location_id: strangerLocation }] }), 'transport_legs.0.to_location_id', 'reference_not_found'],
      [shipmentBody(refs, [devices[3]], { planned_departure_at: '2030-01-02T00:00:00Z', planned_arrival_at: '2030-01-01T00:00:00Z' }), 'planned_arrival_at', 'not_after_departure'],
      [shipmentBody(refs, []), 'device_ids', 'arrayMinSize'],
      [shipmentBody(refs, [devices[3], devices[3]]), 'device_ids', 'arrayUnique'],
      [{ ...shipmentBody(refs, [devices[3]]), status: 'completed' }, 'status', 'unknown_field'],
    ];
    for (const [body, field, code] of cases) {
      const res = await post(tenant, body).expect(400);
      expect({ field, body: res.body }).toMatchObject({ field, body: { code: 'validation_failed', errors: expect.arrayContaining([expect.objectContaining({ field, code })]) } });
    }
    expect((await db.query(`SELECT count(*)::int AS n FROM shipment_devices WHERE device_id = $1`, [devices[3]]))[0].n).toBe(0);
  });

  it('carries one to five eligible devices: too_many_devices, and device_not_eligible naming each refused device', async () => {
    const { tenant, refs, devices } = world;
    const six = await post(tenant, shipmentBody(refs, devices.slice(0, 6))).expect(400);
    expect(six.body).toMatchObject({ code: 'too_many_devices', errors: [{ field: 'device_ids', code: 'too_many_devices' }] });

    const unapproved = (await registerDevice(db, tenant.accountId, false)).id;
    const deleted = (await registerDevice(db, tenant.accountId)).id;
    await db.query(`UPDATE devices SET deleted_at = now() WHERE id = $1`, [deleted]);
    const foreign = (await registerDevice(db, (await createTenant(api.app, undefined, 'Foreign')).accountId)).id;
    const busy = devices[4];
    await createShipment(api, tenant, shipmentBody(refs, [busy], { reference: 'BUSY' }));
    const res = await post(tenant, shipmentBody(refs, [devices[5], unapproved, deleted, foreign, busy])).expect(400);
    expect(res.body.code).toBe('device_not_eligible');
    expect(res.body.errors).toEqual([
      expect.objectContaining({ field: 'device_ids.1', code: 'device_not_available' }),
      expect.objectContaining({ field: 'device_ids.2', code: 'device_not_available' }),
      expect.objectContaining({ field: 'device_ids.3', code: 'device_not_available' }),
      expect.objectContaining({ field: 'device_ids.4', code: 'device_in_active_shipment' }),
    ]);
    expect(JSON.stringify(res.body)).not.toContain('Foreign');
    // exactly five is fine
    const five = await createShipment(api, tenant, shipmentBody(refs, devices.slice(5, 10), { reference: 'FIVE' }));
    expect(five.device_ids).toHaveLength(5);
    await api.http.post(`${API}/shipments/${five.id}/complete/`).set(tenant.auth).expect(200);
  });

  it('a device transferred to another owner leaves its active shipment, and the new owner can ship it', async () => {
    const { tenant, refs, devices } = world;
    const device = devices[10];
    const shipment = await createShipment(api, tenant, shipmentBody(refs, [device], { reference: 'SOLD' }));
    const buyer = await shipmentWorld(api, 1, undefined, 'Buyer');
    await new DeviceAdminService(db, detachDeviceLifecycle).transfer(device, buyer.tenant.accountId);
    const detail = await api.http.get(`${API}/shipments/${shipment.id}/`).set(tenant.auth).expect(200);
    expect(detail.body.device_ids).toEqual([]);
    expect(detail.body.devices).toEqual([expect.objectContaining({ device_id: device, detached_at: expect.any(String) })]);
    const theirs = await createShipment(api, buyer.tenant, shipmentBody(buyer.refs, [device], { reference: 'BOUGHT' }));
    expect(theirs.device_ids).toEqual([device]);
  });

  it('replays a create sent again with the same Idempotency-Key, creating one shipment and one event', async () => {
    const { tenant, refs, devices } = world;
    const key = newKey();
    const body = shipmentBody(refs, [devices[9]], { reference: 'ONCE' });
    const first = await api.http.post(`${API}/shipments/create/`).set(tenant.auth).set('Idempotency-Key', key).send(body).expect(201);
    const again = await api.http.post(`${API}/shipments/create/`).set(tenant.auth).set('Idempotency-Key', key).send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await db.query(`SELECT count(*)::int AS n FROM shipments WHERE account_id = $1 AND reference = 'ONCE'`, [tenant.accountId]))[0].n).toBe(1);
    expect((await db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'shipment.created' AND aggregate_id = $1`, [String(first.body.id)]))[0].n).toBe(1);
    await api.http.post(`${API}/shipments/create/`).set(tenant.auth).send(body).expect(400).expect((res) => expect(res.body.code).toBe('idempotency_key_required'));
    await api.http.post(`${API}/shipments/${first.body.id}/complete/`).set(tenant.auth).expect(200);
  });

  it('lets only one of two concurrent creates take the same device', async () => {
    const { tenant, refs, devices } = world;
    const device = devices[11];
    const results = await Promise.all([1, 2, 3].map(() => post(tenant, shipmentBody(refs, [device], { reference: 'RACE' }))));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.code).toBe('device_not_eligible');
    const created = results.find((r) => r.status === 201)!.body;
    await api.http.post(`${API}/shipments/${created.id}/complete/`).set(tenant.auth).expect(200);
  });
});
