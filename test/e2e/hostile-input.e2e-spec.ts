import type { DataSource } from 'typeorm';
import { API, startApi, type TestApi } from '../support/api';
import { newKey } from '../support/catalogue';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { registerDevice } from '../support/devices';

/**
 * The three causes of 500s a fuzzing run found: deeply nested JSON, NUL characters, and
 * timestamps that are valid ISO 8601 but overflow on the way to PostgreSQL. Each is a 400 that
 * names the field, and changes nothing.
 */
describe('hostile input is a 400 naming the field, never a 500', () => {
  let api: TestApi;
  let db: DataSource;
  let tenant: Tenant;

  beforeAll(async () => {
    api = await startApi();
    db = dataSourceOf(api.app);
    tenant = await createTenant(api.app, ['carriers:read', 'carriers:write', 'locations:read', 'locations:write', 'telemetry:read', 'shipments:read', 'shipments:write']);
  });
  afterAll(() => api.close());

  const post = (collection: string, body: string | object) =>
    api.raw.post(`${API}/${collection}/`).set(tenant.auth).set('Idempotency-Key', newKey()).set('Content-Type', 'application/json').send(typeof body === 'string' ? body : JSON.stringify(body));
  const carriers = async (name: string): Promise<number> =>
    (await db.query('SELECT count(*)::int AS n FROM carriers WHERE account_id = $1 AND name LIKE $2', [tenant.accountId, `${name}%`]))[0].n;
  const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it.each([
    ['carriers', 'contact', (deep: string) => `{"name":"Deep","mode":"road","contact":${deep}}`],
    ['locations', 'geofence', (deep: string) => `{"name":"Deep","geofence":${deep}}`],
    ['carriers', 'body', (deep: string) => deep],
  ])('refuses 100,000 nested arrays in a %s body, naming %s', async (collection, field, body) => {
    const res = await post(collection, body(nested(100_000))).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ field, code: 'nesting_too_deep', message: expect.any(String) }] });
    expect(await carriers('Deep')).toBe(0);
  });

  it.each([[[null]], [[[]]], [null], ['circle']])('refuses geofence %j on create and replace with a 400 naming it', async (geofence) => {
    const created = await post('locations', { name: 'Geo base', kind: 'warehouse', geofence: { type: 'circle', center: { latitude: 38.4, longitude: 27.1 }, radius_m: 500 } });
    const create = await post('locations', { name: 'Geo bad', kind: 'warehouse', geofence }).expect(400);
    expect(create.body.errors.map((e: { field: string }) => e.field)).toContain('geofence');
    const replace = await api.raw.put(`${API}/locations/${created.body.id}/`).set(tenant.auth).send({ name: 'Geo bad', kind: 'port', geofence }).expect(400);
    expect(replace.body.errors.map((e: { field: string }) => e.field)).toContain('geofence');
  });

  it('still accepts the deepest legitimate body (a polygon geofence)', async () => {
    const polygon = { type: 'polygon', points: [{ latitude: 38.4, longitude: 27.1 }, { latitude: 38.5, longitude: 27.1 }, { latitude: 38.5, longitude: 27.2 }] };
    const res = await post('locations', { name: 'Polygon site', address: 'Quay 1', geofence: polygon });
    expect(res.status).not.toBe(500);
    expect(res.body.errors ?? []).not.toContainEqual(expect.objectContaining({ code: 'nesting_too_deep' }));
  });

  it('refuses a NUL character or a lone surrogate in a body string, a body key, a query value and a path', async () => {
    const nul = await post('carriers', { name: 'Nul\u0000Lines', mode: 'road' }).expect(400);
    expect(nul.body.errors).toEqual([{ field: 'name', code: 'invalid_character', message: expect.any(String) }]);
    const surrogate = await post('carriers', '{"name":"Half \\ud800 pair","mode":"road"}').expect(400);
    expect(surrogate.body.errors[0]).toMatchObject({ field: 'name', code: 'invalid_character' });
    const key = await post('carriers', { name: 'Key Lines', mode: 'road', ['bad\u0000key']: 1 }).expect(400);
    expect(key.body.errors[0]).toMatchObject({ field: 'bad\u0000key', code: 'invalid_character' });
    expect(await carriers('Nul')).toBe(0);
    expect(await carriers('Half')).toBe(0);

    const query = await api.raw.get(`${API}/carriers/?name=a%00b`).set(tenant.auth).expect(400);
    expect(query.body.errors[0]).toMatchObject({ field: 'name', code: 'invalid_character' });
    const path = await api.raw.get(`${API}/carriers/abc%00def/`).set(tenant.auth).expect(400);
    expect(path.body.errors[0]).toMatchObject({ field: 'path', code: 'invalid_character' });
  });

  it.each([
    ['to', '9999-12-31T23:59:59-14:00'],
    ['from', '0000-01-01T00:00:00Z'],
    ['to', '+275760-09-13T00:00:00Z'],
  ])('refuses telemetry %s=%s', async (field, value) => {
    const device = await registerDevice(db, tenant.accountId);
    const res = await api.raw.get(`${API}/devices/${device.id}/telemetry/?${field}=${encodeURIComponent(value)}`).set(tenant.auth).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('accepts the last representable instant', async () => {
    const device = await registerDevice(db, tenant.accountId);
    await api.raw.get(`${API}/devices/${device.id}/telemetry/?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z`).set(tenant.auth).expect((res) => expect(res.status).toBeLessThan(500));
  });

  it('refuses an overflowing timestamp in a body date field (a shipment leg)', async () => {
    const res = await post('shipments/create', {
      reference: 'Overflow',
      origin_location_id: '01900000-0000-7000-8000-000000000001',
      destination_location_id: '01900000-0000-7000-8000-000000000002',
      device_ids: ['01900000-0000-7000-8000-000000000003'],
      transport_legs: [{ mode: 'road', planned_departure_at: '9999-12-31T23:59:59-14:00' }],
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain('timestamp_out_of_range');
  });
});
