import { decode } from 'jsonwebtoken';
import { sign } from 'jsonwebtoken';
import { CredentialsService } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { createAccount, createCredential, createTenant, dataSourceOf, tokenFor } from '../support/fixtures';

describe('OAuth2 token exchange and the authorization pipeline', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  describe('POST /oauth/token/', () => {
    it('issues a JWT for form credentials with every claim the contract names', async () => {
      const tenant = await createTenant(api.app, ['accounts:read', 'devices:read']);
      const res = await api.http
        .post(`${API}/oauth/token/`)
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: tenant.credential.client_id, client_secret: tenant.credential.client_secret })
        .expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'accounts:read devices:read' });
      const token = decode(res.body.access_token, { complete: true });
      expect(token?.header).toMatchObject({ alg: 'HS256', kid: 'dev' });
      const claims = token?.payload as Record<string, unknown>;
      expect(claims).toMatchObject({ sub: tenant.credential.client_id, iss: 'coldchain-public-api', aud: 'coldchain-public-api-v1', scope: 'accounts:read devices:read' });
      expect(typeof claims.jti).toBe('string');
      expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(3600);
    });

    it('accepts HTTP Basic with JSON and narrows scopes', async () => {
      const tenant = await createTenant(api.app, ['accounts:read', 'devices:read']);
      const basic = Buffer.from(`${tenant.credential.client_id}:${encodeURIComponent(tenant.credential.client_secret)}`).toString('base64');
      const res = await api.http
        .post(`${API}/oauth/token/`)
        .set('Authorization', `Basic ${basic}`)
        .send({ grant_type: 'client_credentials', scope: 'devices:read' })
        .expect(200);
      expect(res.body.scope).toBe('devices:read');
      await api.http.get(`${API}/accounts/`).set('Authorization', `Bearer ${res.body.access_token}`).expect(403);
    });

    it.each([
      [{ client_id: 'x' }, 400, 'invalid_request'],
      [{ grant_type: 'password', client_id: 'x', client_secret: 'y' }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'nothing' }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials' }, 401, 'invalid_client'],
    ])('refuses %j with %i %s (RFC 6749 §5.2 body)', async (body, status, error) => {
      const res = await api.http.post(`${API}/oauth/token/`).type('form').send(body).expect(status);
      expect(res.body).toEqual({ error, error_description: expect.any(String) });
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('refuses a wrong secret, a scope not granted, and a revoked credential', async () => {
      const tenant = await createTenant(api.app, ['accounts:read']);
      const form = { grant_type: 'client_credentials', client_id: tenant.credential.client_id };
      const wrong = await api.http.post(`${API}/oauth/token/`).type('form').send({ ...form, client_secret: 'wrong' }).expect(401);
      expect(wrong.body.error).toBe('invalid_client');
      expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
      const scope = await api.http
        .post(`${API}/oauth/token/`)
        .type('form')
        .send({ ...form, client_secret: tenant.credential.client_secret, scope: 'users:write' })
        .expect(400);
      expect(scope.body.error).toBe('invalid_scope');
      await new CredentialsService(dataSourceOf(api.app)).revoke(tenant.credential.client_id);
      await api.http.post(`${API}/oauth/token/`).type('form').send({ ...form, client_secret: tenant.credential.client_secret }).expect(401);
    });

    it('stores the client secret only as an scrypt hash', async () => {
      const tenant = await createTenant(api.app, ['accounts:read']);
      const [row] = await dataSourceOf(api.app).query('SELECT secret_hash FROM api_credentials WHERE client_id = $1', [tenant.credential.client_id]);
      expect(row.secret_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(row.secret_hash).not.toContain(tenant.credential.client_secret);
    });
  });

  describe('token guard', () => {
    it('answers 401 invalid_token with WWW-Authenticate for a missing, forged, expired or foreign token', async () => {
      const tenant = await createTenant(api.app, ['accounts:read']);
      const forged = sign({ scope: 'accounts:read' }, 'not-the-key-not-the-key-not-the-key', { algorithm: 'HS256', keyid: 'dev', subject: tenant.credential.client_id, issuer: 'coldchain-public-api', audience: 'coldchain-public-api-v1', expiresIn: 60 });
      const key = api.config.jwtSigningKeys[0];
      const expired = sign({ scope: 'accounts:read', exp: Math.floor(Date.now() / 1000) - 10 }, key.secret, { algorithm: 'HS256', keyid: key.kid, subject: tenant.credential.client_id, issuer: 'coldchain-public-api', audience: 'coldchain-public-api-v1' });
      const otherAudience = sign({ scope: 'accounts:read' }, key.secret, { algorithm: 'HS256', keyid: key.kid, subject: tenant.credential.client_id, issuer: 'coldchain-public-api', audience: 'somebody-else', expiresIn: 60 });
      const unsigned = sign({ scope: 'accounts:read', sub: tenant.credential.client_id, iss: 'coldchain-public-api', aud: 'coldchain-public-api-v1' }, '', { algorithm: 'none' });
      for (const header of [undefined, 'Bearer nonsense', `Bearer ${forged}`, `Bearer ${expired}`, `Bearer ${otherAudience}`, `Bearer ${unsigned}`, `Basic abc`]) {
        const call = api.http.get(`${API}/accounts/`);
        if (header) call.set('Authorization', header);
        const res = await call.expect(401);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({ status: 401, code: 'invalid_token', type: expect.any(String), title: expect.any(String) });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
      }
    });

    it('refuses the next call after the credential is revoked', async () => {
      const tenant = await createTenant(api.app, ['accounts:read']);
      await api.http.get(`${API}/accounts/`).set(tenant.auth).expect(200);
      await new CredentialsService(dataSourceOf(api.app)).revoke(tenant.credential.client_id);
      const res = await api.http.get(`${API}/accounts/`).set(tenant.auth).expect(401);
      expect(res.body.code).toBe('invalid_token');
    });

    it('answers a credential lookup that fails for another reason than an outage with 500 and an error_id, not 401 invalid_token', async () => {
      const tenant = await createTenant(api.app, ['accounts:read']);
      const dataSource = dataSourceOf(api.app);
      await api.http.get(`${API}/accounts/`).set(tenant.auth).expect(200);
      // The lookup's statement no longer runs (as a statement deallocated under a pooler, or a schema
      // changed under a running api would): the server's fault, which a new token cannot fix.
      await dataSource.query('ALTER TABLE api_credential_accounts RENAME TO api_credential_accounts_away');
      try {
        // api.raw: the contract documents what a request can cause, not a server fault.
        const res = await api.raw.get(`${API}/accounts/`).set(tenant.auth).expect(500);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.headers['www-authenticate']).toBeUndefined();
        expect(res.body).toMatchObject({ status: 500, code: 'internal_error', error_id: expect.any(String) });
      } finally {
        await dataSource.query('ALTER TABLE api_credential_accounts_away RENAME TO api_credential_accounts');
      }
      await api.http.get(`${API}/accounts/`).set(tenant.auth).expect(200);
    });
  });

  describe('scopes guard', () => {
    it('answers 403 insufficient_scope naming the required scope', async () => {
      const tenant = await createTenant(api.app, ['devices:read']);
      const res = await api.http.get(`${API}/accounts/`).set(tenant.auth).expect(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="accounts:read"');
    });

    it('drops a scope removed from the credential since the token was issued', async () => {
      const tenant = await createTenant(api.app, ['accounts:read', 'accounts:write']);
      await dataSourceOf(api.app).query(`UPDATE api_credentials SET scopes = '{accounts:write}' WHERE client_id = $1`, [tenant.credential.client_id]);
      await api.http.get(`${API}/accounts/`).set(tenant.auth).expect(403);
    });
  });

  describe('tenant guard (X-Service-Account-ID)', () => {
    it('requires a selection when the credential has several active accounts, and refuses accounts off the list', async () => {
      const dataSource = dataSourceOf(api.app);
      const first = await createAccount(dataSource, 'First');
      const second = await createAccount(dataSource, 'Second');
      const suspended = await createAccount(dataSource, 'Suspended', { status: 'suspended' });
      const internal = await createAccount(dataSource, 'Internal', { kind: 'internal' });
      const stranger = await createAccount(dataSource, 'Stranger');
      const credential = await createCredential(dataSource, [first, second, suspended, internal]);
      const auth = { Authorization: `Bearer ${await tokenFor(api.app, credential)}` };

      // accounts are tenant-free: the list shows only the active customer accounts of the allow-list
      const list = await api.http.get(`${API}/accounts/`).set(auth).expect(200);
      expect(list.body.data.map((a: { id: string }) => a.id).sort()).toEqual([first, second].sort());

      for (const id of [suspended, internal, stranger, 'not-a-uuid']) {
        const res = await api.http.get(`${API}/accounts/`).set(auth).set('X-Service-Account-ID', id).expect(403);
        expect(res.body.code).toBe('account_not_allowed');
      }
      await api.http.get(`${API}/accounts/${suspended}/`).set(auth).expect(404);
      await api.http.get(`${API}/accounts/${stranger}/`).set(auth).expect(404);

      // a change of the allow-list takes effect on the next call
      await dataSource.query('DELETE FROM api_credential_accounts WHERE credential_id = $1 AND account_id = $2', [credential.id, second]);
      await api.http.get(`${API}/accounts/${second}/`).set(auth).expect(404);
      await dataSource.query(`UPDATE accounts SET status = 'suspended' WHERE id = $1`, [first]);
      await api.http.get(`${API}/accounts/${first}/`).set(auth).expect(404);
    });
  });

  it('gives every response an X-Request-ID, echoing a well-formed one', async () => {
    const echoed = await api.http.get(`${API}/`).set('X-Request-ID', 'client-trace-42').expect(200);
    expect(echoed.headers['x-request-id']).toBe('client-trace-42');
    const assigned = await api.http.get(`${API}/accounts/`).set('X-Request-ID', 'bad value with spaces').expect(401);
    expect(assigned.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps tokens usable with a second verification key during rotation', async () => {
    const rotated = await startApi({ JWT_SIGNING_KEYS: `new:${'n'.repeat(40)},dev:${api.config.jwtSigningKeys[0].secret}` });
    try {
      const tenant = await createTenant(api.app, ['accounts:read']);
      await rotated.http.get(`${API}/accounts/`).set(tenant.auth).expect(200);
      const fresh = await tokenFor(rotated.app, tenant.credential);
      expect(decode(fresh, { complete: true })?.header.kid).toBe('new');
    } finally {
      await rotated.close();
    }
  });
});
