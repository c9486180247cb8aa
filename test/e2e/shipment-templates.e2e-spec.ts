import { Client } from 'pg';
import { API, startApi, type TestApi } from '../support/api';
import { createRecord, createTemplateRefs, newKey, type CatalogueRefs, type Json } from '../support/catalogue';
import { createTenant, type Tenant } from '../support/fixtures';

describe('/shipment-templates/: references and in-use deletes', () => {
  let api: TestApi;
  let tenant: Tenant;
  let refs: CatalogueRefs;
  let strangerRefs: CatalogueRefs;
  const post = (body: Json) => api.http.post(`${API}/shipment-templates/`).set(tenant.auth).set('Idempotency-Key', newKey()).send(body);
  const route = () => ({ name: 'Route', origin_location_id: refs.origin, destination_location_id: refs.destination });
  const fieldErrors = (body: { errors?: Array<{ field: string; code: string }> }) => (body.errors ?? []).map((e) => [e.field, e.code]);

  beforeAll(async () => {
    api = await startApi();
    tenant = await createTenant(api.app);
    refs = await createTemplateRefs(api, tenant);
    strangerRefs = await createTemplateRefs(api, await createTenant(api.app, undefined, 'Stranger'));
  });
  afterAll(() => api.close());

  it('stores a full template with legs, filling leg fields not sent with null', async () => {
    const body = {
      ...route(),
      description: 'Sea to the hub, then road',
      carrier_id: refs.seaCarrier,
      receiver_id: refs.receiver,
      alert_preset_id: refs.preset,
      transport_legs: [
        { mode: 'sea', carrier_id: refs.seaCarrier, vessel_mmsi: '271000123', vessel_imo: '9074729', from_location_id: refs.origin, to_location_id: refs.hub },
        { mode: 'road', carrier_id: refs.roadCarrier, from_location_id: refs.hub, to_location_id: refs.destination },
        { mode: 'air' },
      ],
    };
    const template = await createRecord(api, tenant, 'shipment-templates', body);
    const nulls = { carrier_id: null, vessel_mmsi: null, vessel_imo: null, from_location_id: null, to_location_id: null };
    expect(template).toMatchObject({
      ...body,
      transport_legs: [body.transport_legs[0], { ...nulls, ...body.transport_legs[1] }, { ...nulls, mode: 'air' }],
    });
  });

  it('refuses ids of another account or of nothing, naming every field', async () => {
    const missing = '01a20000-0000-7000-8000-000000000000';
    const res = await post({
      name: 'Borrowed',
      origin_location_id: strangerRefs.origin,
      destination_location_id: refs.destination,
      carrier_id: strangerRefs.seaCarrier,
      receiver_id: missing,
      alert_preset_id: strangerRefs.preset,
      transport_legs: [
        { mode: 'road', carrier_id: refs.roadCarrier, from_location_id: refs.origin, to_location_id: refs.hub },
        { mode: 'road', carrier_id: strangerRefs.roadCarrier, to_location_id: strangerRefs.hub },
      ],
    }).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(new Set(fieldErrors(res.body))).toEqual(
      new Set([
        ['origin_location_id', 'reference_not_found'],
        ['transport_legs.1.to_location_id', 'reference_not_found'],
        ['carrier_id', 'reference_not_found'],
        ['transport_legs.1.carrier_id', 'reference_not_found'],
        ['receiver_id', 'reference_not_found'],
        ['alert_preset_id', 'reference_not_found'],
      ]),
    );
  });

  it('checks references again on PUT and PATCH', async () => {
    const template = await createRecord(api, tenant, 'shipment-templates', route());
    const put = await api.http.put(`${API}/shipment-templates/${template.id}/`).set(tenant.auth).send({ ...route(), receiver_id: strangerRefs.receiver }).expect(400);
    expect(fieldErrors(put.body)).toEqual([['receiver_id', 'reference_not_found']]);
    const patch = await api.http.patch(`${API}/shipment-templates/${template.id}/`).set(tenant.auth).send({ destination_location_id: strangerRefs.destination }).expect(400);
    expect(fieldErrors(patch.body)).toEqual([['destination_location_id', 'reference_not_found']]);
  });

  it.each([
    [{ mode: 'road', vessel_mmsi: '271000123' }, 'transport_legs.0.vessel_mmsi', 'not_applicable'],
    [{ mode: 'air', vessel_imo: '9074729' }, 'transport_legs.0.vessel_imo', 'not_applicable'],
    [{ mode: 'multimodal' }, 'transport_legs.0.mode', 'isIn'],
    [{ mode: 'sea', vessel_imo: '9074728' }, 'transport_legs.0.vessel_imo', 'isImoNumber'],
    [{ mode: 'sea', carrier_id: 'not-a-uuid' }, 'transport_legs.0.carrier_id', 'isUuid'],
    [{ mode: 'sea', eta: '2025-01-01' }, 'transport_legs.0.eta', 'unknown_field'],
  ])('refuses the leg %j', async (leg, field, code) => {
    const res = await post({ ...route(), transport_legs: [leg] }).expect(400);
    expect(fieldErrors(res.body)).toContainEqual([field, code]);
  });

  it('refuses more than ten legs', async () => {
    const res = await post({ ...route(), transport_legs: Array.from({ length: 11 }, () => ({ mode: 'road' })) }).expect(400);
    expect(fieldErrors(res.body)).toContainEqual(['transport_legs', 'arrayMaxSize']);
  });

  describe('deleting a record a template still references', () => {
    it.each<[string, string, (r: CatalogueRefs) => Json]>([
      ['locations', 'origin', (r) => ({ origin_location_id: r.origin })],
      ['locations', 'destination', (r) => ({ destination_location_id: r.destination })],
      ['locations', 'hub', (r) => ({ transport_legs: [{ mode: 'road', to_location_id: r.hub }] })],
      ['carriers', 'seaCarrier', (r) => ({ carrier_id: r.seaCarrier })],
      ['carriers', 'roadCarrier', (r) => ({ transport_legs: [{ mode: 'road', carrier_id: r.roadCarrier }] })],
      ['receivers', 'receiver', (r) => ({ receiver_id: r.receiver })],
      ['alert-presets', 'preset', (r) => ({ alert_preset_id: r.preset })],
    ])('/%s/ (%s) is 409 in_use until the template lets go', async (collection, key, reference) => {
      const own = await createTenant(api.app);
      const ownRefs = await createTemplateRefs(api, own);
      const template = await createRecord(api, own, 'shipment-templates', {
        name: 'Holder',
        origin_location_id: ownRefs.origin,
        destination_location_id: ownRefs.destination,
        ...reference(ownRefs),
      });
      const id = ownRefs[key as keyof CatalogueRefs];
      const refused = await api.http.delete(`${API}/${collection}/${id}/`).set(own.auth).expect(409);
      expect(refused.body).toMatchObject({ code: 'in_use', status: 409, detail: expect.stringContaining('shipment template') });
      await api.http.get(`${API}/${collection}/${id}/`).set(own.auth).expect(200);

      await api.http.delete(`${API}/shipment-templates/${template.id}/`).set(own.auth).expect(204);
      await api.http.delete(`${API}/${collection}/${id}/`).set(own.auth).expect(204);
    });

    it('waits for a template being written that references the record, then refuses (no dangling leg)', async () => {
      const own = await createTenant(api.app);
      const ownRefs = await createTemplateRefs(api, own);
      const writer = new Client({ connectionString: api.config.databaseUrl });
      await writer.connect();
      try {
        // What a template write does: key-share lock the referenced rows, insert, commit later.
        await writer.query('BEGIN');
        await writer.query('SELECT id FROM locations WHERE account_id = $1 AND id = $2 FOR KEY SHARE', [own.accountId, ownRefs.hub]);
        await writer.query(
          `INSERT INTO shipment_templates (id, account_id, name, origin_location_id, destination_location_id, transport_legs)
           VALUES (gen_random_uuid(), $1, 'In flight', $2, $3, $4::jsonb)`,
          [own.accountId, ownRefs.origin, ownRefs.destination, JSON.stringify([{ mode: 'road', to_location_id: ownRefs.hub }])],
        );
        const deletion = api.http.delete(`${API}/locations/${ownRefs.hub}/`).set(own.auth).then((res) => res);
        // Commit only once the delete is blocked on the writer's lock.
        for (;;) {
          const { rows } = await writer.query(
            `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_locks h ON h.locktype = l.locktype AND h.relation IS NOT DISTINCT FROM l.relation
               AND h.page IS NOT DISTINCT FROM l.page AND h.tuple IS NOT DISTINCT FROM l.tuple AND h.transactionid IS NOT DISTINCT FROM l.transactionid
              WHERE NOT l.granted AND h.granted AND h.pid = pg_backend_pid()`,
          );
          if (rows[0].waiting > 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        await writer.query('COMMIT');
        const res = await deletion;
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('in_use');
      } finally {
        await writer.end();
      }
    });
  });
});
