import { API, startApi, type TestApi } from '../support/api';
import { CIRCLE, createRecord, createTemplateRefs, localPath, newKey, type CatalogueRefs, type Json } from '../support/catalogue';
import { createTenant, type Tenant } from '../support/fixtures';

interface FamilyCase {
  collection: string;
  readScope: string;
  writeScope: string;
  /** A minimal valid create body. */
  body(refs: CatalogueRefs): Json;
  required: string[];
  /** An optional field sent on create; PUT without it restores `reset`. */
  optional(refs: CatalogueRefs): { field: string; value: unknown; reset: unknown };
}

const FAMILIES: FamilyCase[] = [
  {
    collection: 'locations',
    readScope: 'locations:read',
    writeScope: 'locations:write',
    body: () => ({ name: 'Izmir Port Cold Store', kind: 'port', geofence: CIRCLE }),
    required: ['name', 'kind', 'geofence'],
    optional: () => ({ field: 'city', value: 'Izmir', reset: null }),
  },
  {
    collection: 'carriers',
    readScope: 'carriers:read',
    writeScope: 'carriers:write',
    body: () => ({ name: 'Aegean Reefer Lines', mode: 'sea' }),
    required: ['name', 'mode'],
    optional: () => ({ field: 'scac', value: 'AGRL', reset: null }),
  },
  {
    collection: 'receivers',
    readScope: 'receivers:read',
    writeScope: 'receivers:write',
    body: () => ({ name: 'Ankara City Hospital' }),
    required: ['name'],
    optional: () => ({ field: 'notification_emails', value: ['alerts@hospital.example'], reset: [] }),
  },
  {
    collection: 'alert-presets',
    readScope: 'alert-presets:read',
    writeScope: 'alert-presets:write',
    body: () => ({ name: 'Vaccines 2–8 °C', temperature_min: 2, temperature_max: 8 }),
    required: ['name'],
    optional: () => ({ field: 'delay_minutes', value: 30, reset: 0 }),
  },
  {
    collection: 'shipment-templates',
    readScope: 'shipment-templates:read',
    writeScope: 'shipment-templates:write',
    body: (refs) => ({ name: 'Izmir → Ankara', origin_location_id: refs.origin, destination_location_id: refs.destination }),
    required: ['name', 'origin_location_id', 'destination_location_id'],
    optional: (refs) => ({ field: 'receiver_id', value: refs.receiver, reset: null }),
  },
];

describe.each(FAMILIES)('catalogue CRUD: /$collection/', (family) => {
  let api: TestApi;
  let tenant: Tenant;
  let refs: CatalogueRefs;
  const url = (id = '') => `${API}/${family.collection}/${id ? `${id}/` : ''}`;

  beforeAll(async () => {
    api = await startApi();
    tenant = await createTenant(api.app);
    refs = await createTemplateRefs(api, tenant);
  });
  afterAll(() => api.close());

  it('creates, reads, lists, patches, replaces and deletes a record', async () => {
    const { field, value, reset } = family.optional(refs);
    const body = family.body(refs);
    const created = await createRecord(api, tenant, family.collection, { ...body, [field]: value });
    expect(created).toMatchObject({ ...body, [field]: value, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(created).not.toHaveProperty('account_id');
    const id = created.id as string;

    expect((await api.http.get(url(id)).set(tenant.auth).expect(200)).body).toEqual(created);
    const list = await api.http.get(url()).set(tenant.auth).expect(200);
    expect(list.body.data).toContainEqual(created);

    const patched = await api.http.patch(url(id)).set(tenant.auth).send({ name: 'Renamed' }).expect(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', [field]: value });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at as string));
    expect(patched.body.created_at).toBe(created.created_at);

    const replaced = await api.http.put(url(id)).set(tenant.auth).send(body).expect(200);
    expect(replaced.body).toMatchObject({ ...body, [field]: reset });
    expect((await api.http.get(url(id)).set(tenant.auth).expect(200)).body).toEqual(replaced.body);

    await api.http.delete(url(id)).set(tenant.auth).expect(204);
    await api.http.get(url(id)).set(tenant.auth).expect(404);
    await api.http.delete(url(id)).set(tenant.auth).expect(404);
  });

  it.each(['unexpected', 'id', 'account_id', 'created_at'])('refuses the field %s on POST, PUT and PATCH', async (extra) => {
    const body = family.body(refs);
    const record = await createRecord(api, tenant, family.collection, body);
    const refused = { ...body, [extra]: 'x' };
    const responses = [
      await api.http.post(url()).set(tenant.auth).set('Idempotency-Key', newKey()).send(refused),
      await api.http.put(url(record.id as string)).set(tenant.auth).send(refused),
      await api.http.patch(url(record.id as string)).set(tenant.auth).send({ [extra]: 'x' }),
    ];
    for (const res of responses) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors).toContainEqual({ field: extra, code: 'unknown_field', message: expect.any(String) });
    }
    expect((await api.http.get(url(record.id as string)).set(tenant.auth).expect(200)).body).toEqual(record);
  });

  it('PUT requires every required field; PATCH changes only what is sent and refuses null for required fields', async () => {
    const { field, value } = family.optional(refs);
    const record = await createRecord(api, tenant, family.collection, { ...family.body(refs), [field]: value });
    const id = record.id as string;
    const put = await api.http.put(url(id)).set(tenant.auth).send({ [field]: value }).expect(400);
    expect(new Set(put.body.errors.map((e: { field: string }) => e.field))).toEqual(new Set(family.required));

    for (const required of family.required) {
      const res = await api.http.patch(url(id)).set(tenant.auth).send({ [required]: null }).expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(required);
    }
    const empty = await api.http.patch(url(id)).set(tenant.auth).send({}).expect(200);
    // Nothing changed, so updated_at stays too.
    expect(empty.body).toEqual(record);
    const cleared = await api.http.patch(url(id)).set(tenant.auth).send({ [field]: null });
    // Nullable fields clear with null; list and number fields with a default refuse it.
    if (record[field] !== null && (Array.isArray(value) || typeof value === 'number')) {
      expect(cleared.status).toBe(400);
    } else {
      expect(cleared.status).toBe(200);
      expect(cleared.body[field]).toBeNull();
    }
  });

  it('answers 404 for another tenant’s record on GET, PUT, PATCH and DELETE, leaving it unchanged', async () => {
    const owner = await createTenant(api.app, undefined, 'Owner');
    const ownerRefs = family.collection === 'shipment-templates' ? await createTemplateRefs(api, owner) : refs;
    const record = await createRecord(api, owner, family.collection, family.body(ownerRefs));
    const id = record.id as string;
    await api.http.get(url(id)).set(tenant.auth).expect(404);
    await api.http.put(url(id)).set(tenant.auth).send(family.body(refs)).expect(404);
    await api.http.patch(url(id)).set(tenant.auth).send({ name: 'Stolen' }).expect(404);
    const res = await api.http.delete(url(id)).set(tenant.auth).expect(404);
    expect(res.body.code).toBe('not_found');
    const list = await api.http.get(url()).set(tenant.auth).expect(200);
    expect(list.body.data.map((r: Json) => r.id)).not.toContain(id);
    expect((await api.http.get(url(id)).set(owner.auth).expect(200)).body).toEqual(record);
  });

  it('replays an idempotent create and refuses the key for a different body', async () => {
    const fresh = await createTenant(api.app);
    const freshRefs = family.collection === 'shipment-templates' ? await createTemplateRefs(api, fresh) : refs;
    const body = { ...family.body(freshRefs), name: 'Idempotent' };
    const key = newKey();
    const first = await api.http.post(url()).set(fresh.auth).set('Idempotency-Key', key).send(body).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await api.http.post(url()).set(fresh.auth).set('Idempotency-Key', key).send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const list = await api.http.get(url()).set(fresh.auth).expect(200);
    expect(list.body.data.filter((r: Json) => r.name === 'Idempotent')).toHaveLength(1);

    const reused = await api.http.post(url()).set(fresh.auth).set('Idempotency-Key', key).send({ ...body, name: 'Other' }).expect(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    const missing = await api.http.post(url()).set(fresh.auth).send(body).expect(400);
    expect(missing.body.code).toBe('idempotency_key_required');
  });

  it('pages through the account’s records with links.next', async () => {
    const fresh = await createTenant(api.app);
    const freshRefs = family.collection === 'shipment-templates' ? await createTemplateRefs(api, fresh) : refs;
    const created: string[] = [];
    for (const n of [1, 2, 3]) created.push((await createRecord(api, fresh, family.collection, { ...family.body(freshRefs), name: `Record ${n}` })).id as string);
    const first = await api.http.get(`${url()}?limit=2`).set(fresh.auth).expect(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.links.next).toMatch(/^http:\/\/api\.test\//);
    const second = await api.http.get(localPath(first.body.links.next)).set(fresh.auth).expect(200);
    expect(second.body.links.next).toBeNull();
    const seen = [...first.body.data, ...second.body.data].map((r: Json) => r.id as string);
    expect(seen.filter((id) => created.includes(id))).toEqual(created);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('requires the family’s read scope to read and its write scope to write', async () => {
    const reader = await createTenant(api.app, [family.readScope]);
    await api.http.get(url()).set(reader.auth).expect(200);
    const denied = await api.http.post(url()).set(reader.auth).set('Idempotency-Key', newKey()).send(family.body(refs)).expect(403);
    expect(denied.body.code).toBe('insufficient_scope');
    expect(denied.headers['www-authenticate']).toContain(family.writeScope);
    const writer = await createTenant(api.app, [family.writeScope]);
    await api.http.get(url()).set(writer.auth).expect(403);
  });
});
