import type { DataSource } from 'typeorm';
import { prng } from '../../fuzz/hostile-requests';
import { API, startApi, type TestApi } from '../support/api';
import { CIRCLE, createRecord, newKey } from '../support/catalogue';
import { registerDevice } from '../support/devices';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { breakOneRule, sample, type Json, type SampleContext, type Schema } from '../support/schema-samples';

type Operation = { requestBody?: { content: Record<string, { schema: Schema }> } };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

const VALID_SAMPLES = 3;

/**
 * A generated client must never meet a refusal its types allowed: for every create/replace
 * operation of the served document, bodies generated from the document (references filled with
 * records of the same tenant) are accepted, and bodies breaking one stated rule of one field are
 * refused with 400 `validation_failed` naming that field.
 */
describe('request bodies generated from the served schema', () => {
  let api: TestApi;
  let db: DataSource;
  let tenant: Tenant;
  let document: Document;
  const refs: Record<string, string[]> = {};
  const freshDevices: string[] = [];

  const context = (seed: number): SampleContext => {
    const random = prng(seed);
    return {
      schemas: document.components.schemas,
      random,
      reference: (field) => {
        const kind = /location_id$/.test(field) ? 'location' : field.replace(/_id$/, '');
        const ids = refs[kind];
        if (!ids) return undefined;
        // Origin and destination differ.
        return field === 'destination_location_id' || field === 'to_location_id' ? ids[1] : ids[0];
      },
      devices: (count) => freshDevices.splice(0, count),
    };
  };

  beforeAll(async () => {
    api = await startApi();
    db = dataSourceOf(api.app);
    tenant = await createTenant(api.app, undefined, 'Schema Samples Co');
    document = (await api.raw.get(`${API}/schema/`).expect(200)).body as Document;
    const location = (name: string) => createRecord(api, tenant, 'locations', { name, kind: 'warehouse', geofence: CIRCLE });
    refs.location = [String((await location('Sample origin')).id), String((await location('Sample destination')).id)];
    refs.carrier = [String((await createRecord(api, tenant, 'carriers', { name: 'Sample carrier', mode: 'road' })).id)];
    refs.receiver = [String((await createRecord(api, tenant, 'receivers', { name: 'Sample receiver' })).id)];
    refs.alert_preset = [String((await createRecord(api, tenant, 'alert-presets', { name: 'Sample preset', temperature_min: 2, temperature_max: 8 })).id)];
    refs.template = [
      String((await createRecord(api, tenant, 'shipment-templates', { name: 'Sample template', origin_location_id: refs.location[0], destination_location_id: refs.location[1] })).id),
    ];
    for (let i = 0; i < 80; i++) freshDevices.push((await registerDevice(db, tenant.accountId)).id);
  }, 120_000);
  afterAll(() => api.close());

  /** Where each create/replace operation is sent: its path with real ids of the tenant. */
  async function target(path: string): Promise<string> {
    let url = path;
    const ids: Record<string, () => Promise<string>> = {
      location_id: async () => refs.location[0],
      carrier_id: async () => refs.carrier[0],
      receiver_id: async () => refs.receiver[0],
      preset_id: async () => refs.alert_preset[0],
      template_id: async () => refs.template[0],
      shipment_id: async () => {
        const created = await api.http
          .post(`${API}/shipments/create/`)
          .set(tenant.auth)
          .set('Idempotency-Key', newKey())
          .send({ reference: 'PUT target', name: 'PUT target', origin_location_id: refs.location[0], destination_location_id: refs.location[1], device_ids: freshDevices.splice(0, 1) })
          .expect(201);
        return String(created.body.id);
      },
    };
    for (const [name, id] of Object.entries(ids)) if (url.includes(`{${name}}`)) url = url.replace(`{${name}}`, await id());
    return url;
  }

  const send = (method: string, url: string, body: Json) => {
    const request = method === 'post' ? api.raw.post(url).set('Idempotency-Key', newKey()) : api.raw.put(url);
    return request.set(tenant.auth).send(body);
  };

  const createOrReplace = (): Array<[string, string, Schema]> =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method, operation]) => (method === 'post' || method === 'put') && operation.requestBody?.content['application/json'] && !path.endsWith('/oauth/token/'))
        .map(([method, operation]) => [method, path, operation.requestBody?.content['application/json'].schema as Schema] as [string, string, Schema]),
    );

  it('covers every create and replace operation', () => {
    expect(createOrReplace().map(([method, path]) => `${method.toUpperCase()} ${path.replace(API, '')}`).sort()).toEqual(
      [
        'POST /locations/', 'PUT /locations/{location_id}/', 'POST /carriers/', 'PUT /carriers/{carrier_id}/', 'POST /receivers/', 'PUT /receivers/{receiver_id}/',
        'POST /alert-presets/', 'PUT /alert-presets/{preset_id}/', 'POST /shipment-templates/', 'PUT /shipment-templates/{template_id}/', 'POST /user-invitations/',
        'POST /shipments/create/', 'PUT /shipments/{shipment_id}/', 'PUT /shipments/{shipment_id}/share/',
      ].sort(),
    );
  });

  it('accepts bodies generated from the schema, and refuses each broken rule with 400 naming the field', async () => {
    const problems: string[] = [];
    let seed = 1;
    for (const [method, path, schema] of createOrReplace()) {
      for (let n = 0; n < VALID_SAMPLES; n++) {
        const body = sample(context(seed++), schema) as Json;
        const res = await send(method, await target(path), body);
        if (res.status >= 300) problems.push(`${method.toUpperCase()} ${path}: valid body refused ${res.status} ${JSON.stringify(res.body.errors ?? res.body.detail)}\n  body ${JSON.stringify(body)}`);
      }
      const ctx = context(seed++);
      const valid = sample(ctx, schema) as Json;
      for (const broken of breakOneRule(ctx, schema, valid)) {
        const res = await send(method, await target(path), broken.body);
        const fields: string[] = (res.body.errors ?? []).map((e: { field: string }) => e.field);
        const named = fields.some((f) => f === broken.field || f.startsWith(`${broken.field}.`));
        if (res.status !== 400 || res.body.code !== 'validation_failed' || !named) {
          problems.push(`${method.toUpperCase()} ${path}: ${broken.rule} of ${broken.field} answered ${res.status} ${JSON.stringify(res.body.errors ?? res.body.detail ?? '')}`);
        }
      }
    }
    expect(problems).toEqual([]);
  }, 180_000);
});
