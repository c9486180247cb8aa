import { API, startApi, type TestApi } from '../support/api';
import { CIRCLE, createRecord, newKey, SQUARE, type Json } from '../support/catalogue';
import { createTenant, type Tenant } from '../support/fixtures';

const polygon = (coordinates: unknown) => ({ type: 'polygon', polygon: { type: 'Polygon', coordinates } });
const ring = (...positions: number[][]) => [positions];
const circle = (changes: Json) => ({ ...CIRCLE, ...changes });

describe('/locations/: geofences and automation', () => {
  let api: TestApi;
  let tenant: Tenant;
  const base = { name: 'Geofenced', kind: 'warehouse' };
  const post = (body: Json) => api.http.post(`${API}/locations/`).set(tenant.auth).set('Idempotency-Key', newKey()).send(body);

  beforeAll(async () => {
    api = await startApi();
    tenant = await createTenant(api.app, ['locations:read', 'locations:write']);
  });
  afterAll(() => api.close());

  it.each<[string, string, string, unknown]>([
    ['no geofence', 'geofence', 'isDefined', undefined],
    ['a geofence that is not an object', 'geofence', 'isObject', 'circle'],
    ['an unknown geofence type', 'geofence.type', 'isIn', { type: 'triangle' }],
    ['a circle without centre', 'geofence.center', 'isDefined', { type: 'circle', radius_m: 100 }],
    ['a circle latitude over 90', 'geofence.center.latitude', 'max', circle({ center: { latitude: 90.5, longitude: 27 } })],
    ['a circle longitude under -180', 'geofence.center.longitude', 'min', circle({ center: { latitude: 38, longitude: -180.1 } })],
    ['a radius under 10 m', 'geofence.radius_m', 'min', circle({ radius_m: 9.9 })],
    ['a radius over 100 km', 'geofence.radius_m', 'max', circle({ radius_m: 100_001 })],
    ['a radius given as a string', 'geofence.radius_m', 'isNumber', circle({ radius_m: '500' })],
    ['a circle carrying a polygon', 'geofence.polygon', 'unknown_field', { ...CIRCLE, polygon: SQUARE.polygon }],
    ['a polygon without geometry', 'geofence.polygon', 'isDefined', { type: 'polygon' }],
    ['a MultiPolygon', 'geofence.polygon.type', 'isIn', { type: 'polygon', polygon: { ...SQUARE.polygon, type: 'MultiPolygon' } }],
    ['a polygon with a hole', 'geofence.polygon.coordinates', 'polygon_rings', polygon([...ring([0, 0], [4, 0], [4, 4], [0, 4], [0, 0]), ...ring([1, 1], [2, 1], [2, 2], [1, 1])])],
    ['a ring of three positions', 'geofence.polygon.coordinates', 'ring_size', polygon(ring([0, 0], [1, 0], [0, 0]))],
    ['a position that is not a pair', 'geofence.polygon.coordinates', 'position_invalid', polygon(ring([0, 0], [1], [0, 1], [0, 0]))],
    ['a longitude of 181', 'geofence.polygon.coordinates', 'position_out_of_range', polygon(ring([0, 0], [181, 0], [0, 1], [0, 0]))],
    ['a latitude of -91', 'geofence.polygon.coordinates', 'position_out_of_range', polygon(ring([0, 0], [1, -91], [0, 1], [0, 0]))],
    ['an open ring', 'geofence.polygon.coordinates', 'ring_not_closed', polygon(ring([0, 0], [1, 0], [1, 1], [0, 1]))],
    ['collinear positions', 'geofence.polygon.coordinates', 'ring_degenerate', polygon(ring([0, 0], [1, 1], [2, 2], [0, 0]))],
    ['a bow tie', 'geofence.polygon.coordinates', 'ring_self_intersection', polygon(ring([0, 0], [2, 2], [2, 0], [0, 2], [0, 0]))],
    ['a ring touching itself', 'geofence.polygon.coordinates', 'ring_self_intersection', polygon(ring([0, 0], [4, 0], [4, 4], [2, 0], [0, 4], [0, 0]))],
  ])('refuses %s: 400 naming %s (%s)', async (_name, field, code, geofence) => {
    const res = await post({ ...base, geofence }).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
  });

  it('stores a polygon and a circle exactly as sent', async () => {
    const concave = polygon(ring([0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2], [0, 0]));
    const withPolygon = await createRecord(api, tenant, 'locations', { ...base, geofence: concave });
    expect(withPolygon.geofence).toEqual(concave);
    const withCircle = await createRecord(api, tenant, 'locations', { ...base, geofence: circle({ radius_m: 10 }) });
    expect(withCircle.geofence).toEqual(circle({ radius_m: 10 }));
  });

  it('validates the geofence the same way on PUT and PATCH', async () => {
    const location = await createRecord(api, tenant, 'locations', { ...base, geofence: CIRCLE });
    const bowtie = polygon(ring([0, 0], [2, 2], [2, 0], [0, 2], [0, 0]));
    const put = await api.http.put(`${API}/locations/${location.id}/`).set(tenant.auth).send({ ...base, geofence: bowtie }).expect(400);
    expect(put.body.errors[0]).toMatchObject({ field: 'geofence.polygon.coordinates', code: 'ring_self_intersection' });
    const patch = await api.http.patch(`${API}/locations/${location.id}/`).set(tenant.auth).send({ geofence: circle({ radius_m: 5 }) }).expect(400);
    expect(patch.body.errors[0]).toMatchObject({ field: 'geofence.radius_m', code: 'min' });
    const replaced = await api.http.patch(`${API}/locations/${location.id}/`).set(tenant.auth).send({ geofence: SQUARE }).expect(200);
    expect(replaced.body.geofence).toEqual(SQUARE);
  });

  it('fills every automation trigger with its default and keeps completion to entry', async () => {
    const off = { record_event: false, raise_alarm: false, alarm_severity: 'WARNING' };
    const plain = await createRecord(api, tenant, 'locations', { ...base, geofence: CIRCLE });
    expect(plain.automation).toEqual({ on_entry: { ...off, mark_arrival: false, complete_shipment: false }, on_exit: off });

    const automation = { on_entry: { mark_arrival: true, complete_shipment: true }, on_exit: { raise_alarm: true, alarm_severity: 'CRITICAL' } };
    const set = await createRecord(api, tenant, 'locations', { ...base, geofence: CIRCLE, automation });
    expect(set.automation).toEqual({
      on_entry: { ...off, mark_arrival: true, complete_shipment: true },
      on_exit: { ...off, raise_alarm: true, alarm_severity: 'CRITICAL' },
    });

    for (const [bad, field, code] of [
      [{ on_exit: { complete_shipment: true } }, 'automation.on_exit.complete_shipment', 'unknown_field'],
      [{ on_exit: { mark_arrival: true } }, 'automation.on_exit.mark_arrival', 'unknown_field'],
      [{ on_entry: { raise_alarm: 'yes' } }, 'automation.on_entry.raise_alarm', 'isBoolean'],
      [{ on_entry: { alarm_severity: 'LOUD' } }, 'automation.on_entry.alarm_severity', 'isIn'],
      [{ on_arrival: {} }, 'automation.on_arrival', 'unknown_field'],
      [{ on_entry: null }, 'automation.on_entry', 'isObject'],
    ] as Array<[Json, string, string]>) {
      const res = await post({ ...base, geofence: CIRCLE, automation: bad }).expect(400);
      expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
    }
  });

  it.each([
    ['kind', { kind: 'harbour' }, 'isIn'],
    ['name', { name: '' }, 'isLength'],
    ['country', { country: 'Turkey' }, 'matches'],
  ])('refuses an invalid %s', async (field, change, code) => {
    const res = await post({ ...base, geofence: CIRCLE, ...change }).expect(400);
    expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
  });
});
