import { assertValidOpenApiDocument } from '../support/contract';
import { API, opsAgent, startApi, type TestApi } from '../support/api';
import { createAccount, createCredential, createTenant, dataSourceOf, tokenFor, type Tenant } from '../support/fixtures';

describe('platform conventions: errors, validation, paging, index, schema, operations', () => {
  let api: TestApi;
  let tenant: Tenant;
  beforeAll(async () => {
    api = await startApi();
    tenant = await createTenant(api.app, ['accounts:read', 'accounts:write'], 'Validation Co');
  });
  afterAll(() => api.close());

  describe('accounts', () => {
    it('shows the safe profile and patches only the fields sent', async () => {
      const before = await api.http.get(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      expect(before.body).toMatchObject({ id: tenant.accountId, name: 'Validation Co', status: 'active', subscription: { plan: 'standard' } });
      expect(before.body).not.toHaveProperty('kind');
      const patched = await api.http
        .patch(`${API}/accounts/${tenant.accountId}/`)
        .set(tenant.auth)
        .send({ contact_email: 'ops@validation.example', country: 'TR' })
        .expect(200);
      expect(patched.body).toMatchObject({ name: 'Validation Co', contact_email: 'ops@validation.example', country: 'TR', legal_name: null });
      const cleared = await api.http.patch(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).send({ country: null }).expect(200);
      expect(cleared.body).toMatchObject({ contact_email: 'ops@validation.example', country: null });
    });

    it.each([
      [{ status: 'suspended' }, 'status', 'unknown_field'],
      [{ subscription: { plan: 'free' } }, 'subscription', 'unknown_field'],
      [{ kind: 'internal' }, 'kind', 'unknown_field'],
      [{ name: null }, 'name', 'isString'],
      [{ name: '' }, 'name', 'isLength'],
      [{ contact_email: 'not-an-email' }, 'contact_email', 'isEmail'],
      [{ country: 'turkey' }, 'country', 'matches'],
      [{ website: 'javascript:alert(1)' }, 'website', 'isUrl'],
    ])('refuses %j with 400 validation_failed naming %s, and changes nothing', async (body, field, code) => {
      const before = await api.http.get(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      const res = await api.http.patch(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).send(body).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
      const after = await api.http.get(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      expect(after.body).toEqual(before.body);
    });

    it('writes JSON as UTF-8 with an exact Content-Length and no ETag; HEAD gets the same headers and no body', async () => {
      await api.http.patch(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).send({ legal_name: 'Soğuk Zincir İzmir A.Ş. ❄' }).expect(200);
      const res = await api.http.get(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body.legal_name).toBe('Soğuk Zincir İzmir A.Ş. ❄');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(res.body)));
      expect(res.headers.etag).toBeUndefined();
      const head = await api.raw.head(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(head.headers['content-length']).toBe(res.headers['content-length']);
      expect(head.text ?? '').toBe('');
      // error bodies keep their own media type
      const missing = await api.http.get(`${API}/accounts/${'0'.repeat(8)}-0000-7000-8000-000000000000/`).set(tenant.auth).expect(404);
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('answers 404 for a malformed id and for an account of another credential', async () => {
      const other = await createTenant(api.app, ['accounts:read'], 'Other Co');
      for (const id of ['123', 'not-a-uuid', "1' OR '1'='1", other.accountId]) {
        const res = await api.http.get(`${API}/accounts/${encodeURIComponent(id)}/`).set(tenant.auth).expect(404);
        expect(res.body.code).toBe('not_found');
      }
      await api.http.patch(`${API}/accounts/${other.accountId}/`).set(tenant.auth).send({ city: 'x' }).expect(404);
    });
  });

  describe('malformed requests', () => {
    it('answers problem details for malformed JSON, an oversized body and an unknown route', async () => {
      const bad = await api.raw
        .patch(`${API}/accounts/${tenant.accountId}/`)
        .set(tenant.auth)
        .set('Content-Type', 'application/json')
        .send('{"name": ')
        .expect(400);
      expect(bad.body).toMatchObject({ code: 'validation_failed', status: 400 });
      const big = await api.raw
        .patch(`${API}/accounts/${tenant.accountId}/`)
        .set(tenant.auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ legal_name: 'x'.repeat(1_100_000) }))
        .expect(413);
      expect(big.body.code).toBe('payload_too_large');
      const missing = await api.raw.get(`${API}/no-such-thing/`).set(tenant.auth).expect(404);
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(missing.body.code).toBe('not_found');
      const text = await api.raw
        .patch(`${API}/accounts/${tenant.accountId}/`)
        .set(tenant.auth)
        .set('Content-Type', 'text/plain')
        .send('{"city": "Izmir"}')
        .expect(415);
      expect(text.body.code).toBe('unsupported_media_type');
      const form = await api.raw.patch(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).type('form').send({ city: 'Izmir' }).expect(415);
      expect(form.body.code).toBe('unsupported_media_type');
      for (const body of ['{"__proto__": {"admin": true}, "city": "Izmir"}', '{"address": {"constructor": {"prototype": {"x": 1}}}}']) {
        const polluted = await api.raw.patch(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).set('Content-Type', 'application/json').send(body).expect(400);
        expect(polluted.body.errors[0].code).toBe('forbidden_key');
      }
      const unchanged = await api.http.get(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      expect(unchanged.body.city).not.toBe('Izmir');
      const array = await api.raw.patch(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).send([1, 2]).expect(400);
      expect(array.body.code).toBe('validation_failed');
    });
  });

  describe('keyset paging', () => {
    it('walks all pages through links.next with no duplicates or gaps while records are inserted', async () => {
      const dataSource = dataSourceOf(api.app);
      const ids: string[] = [];
      for (let i = 0; i < 7; i += 1) ids.push(await createAccount(dataSource, `Paged ${i}`));
      const credential = await createCredential(dataSource, ids, ['accounts:read']);
      const auth = { Authorization: `Bearer ${await tokenFor(api.app, credential)}` };

      const seen: string[] = [];
      let next: string | null = `${API}/accounts/?limit=2`;
      let pages = 0;
      while (next) {
        const url: URL = new URL(next, 'http://api.test');
        const res = await api.http.get(`${url.pathname}${url.search}`).set(auth).expect(200);
        seen.push(...res.body.data.map((a: { id: string }) => a.id));
        next = res.body.links.next;
        if (next) expect(next.startsWith('http://api.test/api/public/v1/accounts/?')).toBe(true);
        pages += 1;
        if (pages === 2) {
          // a concurrent insert lands after the existing records (UUIDv7 order) and is listed once
          const late = await createAccount(dataSource, 'Late');
          await dataSource.query('INSERT INTO api_credential_accounts (credential_id, account_id) VALUES ($1, $2)', [credential.id, late]);
          ids.push(late);
        }
      }
      expect(seen).toEqual([...ids].sort());
      expect(new Set(seen).size).toBe(seen.length);
      expect(pages).toBe(4);
    });

    it('refuses a tampered or foreign cursor and an out-of-range limit', async () => {
      const first = await api.http.get(`${API}/accounts/?limit=1`).set(tenant.auth).expect(200);
      expect(first.body.links.next).toBeNull();
      for (const query of ['cursor=garbage', 'cursor=eyJzIjoiL3giLCJwIjpbXX0.AAAA', 'limit=0', 'limit=201', 'limit=abc', 'unknown=1']) {
        const res = await api.http.get(`${API}/accounts/?${query}`).set(tenant.auth).expect(400);
        expect(['invalid_cursor', 'validation_failed']).toContain(res.body.code);
      }
    });
  });

  describe('index, schema and documentation', () => {
    it('serves the API index with links and the webhook note', async () => {
      const res = await api.http.get(`${API}/`).expect(200);
      expect(res.body.links).toMatchObject({ accounts: 'http://api.test/api/public/v1/accounts/', schema: 'http://api.test/api/public/v1/schema/', docs: 'http://api.test/api/public/v1/docs/' });
      expect(res.body.webhooks).toMatch(/not part of API v1/);
    });

    it('publishes a valid OpenAPI document in JSON and YAML that documents scopes and errors', async () => {
      await assertValidOpenApiDocument(api.document);
      const yaml = await api.raw.get(`${API}/schema/?format=yaml`).expect(200);
      expect(yaml.headers['content-type']).toMatch(/yaml/);
      expect(yaml.text).toMatch(/^openapi: 3\./);
      const doc = api.document as { paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>; components: { securitySchemes: Record<string, { flows?: { clientCredentials?: { tokenUrl: string } } }> } };
      expect(doc.components.securitySchemes.oauth2.flows?.clientCredentials?.tokenUrl).toBe('http://api.test/api/public/v1/oauth/token/');
      const accounts = doc.paths['/api/public/v1/accounts/{account_id}/'];
      expect(accounts.patch.security).toEqual([{ oauth2: ['accounts:write'] }]);
      expect(Object.keys(accounts.patch.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '429']));
      for (const path of ['/api/public/v1/oauth/token/', '/api/public/v1/accounts/', '/api/public/v1/accounts/{account_id}/']) {
        expect(doc.paths[path]).toBeDefined();
      }
    });

    it('serves Swagger UI wired to the client-credentials flow', async () => {
      const page = await api.raw.get(`${API}/docs/`).expect(200);
      expect(page.text).toMatch(/swagger-ui/i);
      const init = await api.raw.get(`${API}/docs/swagger-ui-init.js`).expect(200);
      expect(init.text).toContain('clientCredentials');
    });
  });

  describe('operations', () => {
    it('answers liveness, readiness and (on the ops port) Prometheus metrics by route template', async () => {
      await api.raw.get('/health/live').expect(200, { status: 'ok' });
      await api.raw.get('/health/ready').expect(200, { status: 'ok' });
      const ops = await opsAgent(api);
      const ready = await ops.get('/health/ready').expect(200);
      expect(ready.body.checks.database).toBe('ok');
      await api.http.get(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      const metrics = await ops.get('/metrics').expect(200);
      expect(metrics.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/public\/v1\/accounts\/:account_id"/);
      expect(metrics.text).toMatch(/http_requests_total\{[^}]*status="200"/);
    });
  });
});
