import { API, startApi, type TestApi } from '../support/api';
import { createAccount, createCredential, createTenant, dataSourceOf, tokenFor, type Tenant } from '../support/fixtures';

const countCarriers = async (api: TestApi, accountId: string, name: string): Promise<number> =>
  Number((await dataSourceOf(api.app).query('SELECT count(*) AS n FROM carriers WHERE account_id = $1 AND name = $2', [accountId, name]))[0].n);

describe('Idempotency-Key on record-creating POSTs', () => {
  let api: TestApi;
  let tenant: Tenant;
  beforeAll(async () => {
    api = await startApi();
    tenant = await createTenant(api.app, ['carriers:read', 'carriers:write'], 'Idempotent Co');
  });
  afterAll(() => api.close());

  it('replays the stored response for the same key and request, creating one record', async () => {
    const body = { name: 'Replay Lines', mode: 'road' };
    const first = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'replay-key-0001').send(body).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await api.http
      .post(`${API}/carriers/`)
      .set(tenant.auth)
      .set('Idempotency-Key', 'replay-key-0001')
      .send({ mode: 'road', name: 'Replay Lines' })
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countCarriers(api, tenant.accountId, 'Replay Lines')).toBe(1);
  });

  it('refuses the same key with a different request (422)', async () => {
    await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'reuse-key-0001').send({ name: 'A', mode: 'road' }).expect(201);
    const reused = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'reuse-key-0001').send({ name: 'B', mode: 'road' }).expect(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await countCarriers(api, tenant.accountId, 'B')).toBe(0);

  });

  it('does not store a request refused before it executed: the client corrects it and retries with the same key', async () => {
    const key = 'corrected-key-0001';
    const invalid = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', key).send({ name: 'C', mode: 'spaceship' }).expect(400);
    expect(invalid.body.code).toBe('validation_failed');
    expect(invalid.headers['idempotent-replayed']).toBeUndefined();
    const again = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', key).send({ name: 'C', mode: 'spaceship' }).expect(400);
    expect(again.headers['idempotent-replayed']).toBeUndefined(); // validated again, not replayed
    const corrected = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', key).send({ name: 'C', mode: 'road' }).expect(201);
    expect(corrected.body.name).toBe('C');
    const replay = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', key).send({ name: 'C', mode: 'road' }).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await countCarriers(api, tenant.accountId, 'C')).toBe(1);

    // 403: a credential without the scope is refused before anything runs; granted, the same key executes.
    const reader = await createTenant(api.app, ['carriers:read'], 'Scopeless Co');
    await api.http.post(`${API}/carriers/`).set(reader.auth).set('Idempotency-Key', 'scoped-key-0001').send({ name: 'D', mode: 'road' }).expect(403);
    const stored = await dataSourceOf(api.app).query('SELECT count(*)::int AS n FROM idempotency_records WHERE idempotency_key = $1', ['scoped-key-0001']);
    expect(stored[0].n).toBe(0);

    // 415: a wrong content type is refused before anything runs.
    await api.raw.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'typed-key-0001').set('Content-Type', 'text/plain').send('name=E').expect(415);
    await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'typed-key-0001').send({ name: 'E', mode: 'road' }).expect(201);
  });

  it('stores and replays a business refusal (409): the operation ran and said no', async () => {
    const inviter = await createTenant(api.app, ['users:invite'], 'Inviting Co');
    const body = { email: 'twice.invited@example.com', full_name: 'Twice', role: 'VIEWER' };
    await api.http.post(`${API}/user-invitations/`).set(inviter.auth).set('Idempotency-Key', 'invite-key-0001').send(body).expect(201);
    const conflict = await api.http.post(`${API}/user-invitations/`).set(inviter.auth).set('Idempotency-Key', 'invite-key-0002').send(body).expect(409);
    expect(conflict.body.code).toBe('already_invited');
    const replayed = await api.http.post(`${API}/user-invitations/`).set(inviter.auth).set('Idempotency-Key', 'invite-key-0002').send(body).expect(409);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(conflict.body);
    expect(replayed.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it.each([
    [undefined, 'idempotency_key_required'],
    ['', 'idempotency_key_required'],
    ['short', 'idempotency_key_invalid'],
    ['x'.repeat(129), 'idempotency_key_invalid'],
    ['has spaces in it', 'idempotency_key_invalid'],
    ['ünïcödé-key', 'idempotency_key_invalid'],
  ])('refuses key %j with 400 %s and creates nothing', async (key, code) => {
    const name = `No key ${code} ${String(key?.length)}`;
    const call = api.http.post(`${API}/carriers/`).set(tenant.auth);
    if (key !== undefined) call.set('Idempotency-Key', key);
    const res = await call.send({ name, mode: 'road' }).expect(400);
    expect(res.body.code).toBe(code);
    expect(await countCarriers(api, tenant.accountId, name)).toBe(0);
  });

  it('accepts keys of exactly 8 and 128 characters', async () => {
    await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', '12345678').send({ name: 'Eight', mode: 'road' }).expect(201);
    await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'k'.repeat(128)).send({ name: 'Long', mode: 'road' }).expect(201);
  });

  it('creates one record when two identical requests race', async () => {
    const body = { name: 'Race Lines', mode: 'sea' };
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'race-key-000001').send(body)),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    for (const conflict of responses.filter((r) => r.status === 409)) expect(conflict.body.code).toBe('idempotency_request_in_progress');
    const created = responses.filter((r) => r.status === 201).map((r) => r.body.id);
    expect(new Set(created).size).toBe(1);
    expect(await countCarriers(api, tenant.accountId, 'Race Lines')).toBe(1);
  });

  it('scopes keys by credential and account: the same key elsewhere is a new request', async () => {
    const other = await createTenant(api.app, ['carriers:write'], 'Other Idempotent Co');
    const body = { name: 'Shared Key Lines', mode: 'air' };
    const mine = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'shared-key-0001').send(body).expect(201);
    const theirs = await api.http.post(`${API}/carriers/`).set(other.auth).set('Idempotency-Key', 'shared-key-0001').send(body).expect(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();

    // one credential, two accounts: the key is per selected account
    const dataSource = dataSourceOf(api.app);
    const a = await createAccount(dataSource, 'Multi A');
    const b = await createAccount(dataSource, 'Multi B');
    const credential = await createCredential(dataSource, [a, b], ['carriers:write']);
    const auth = { Authorization: `Bearer ${await tokenFor(api.app, credential)}` };
    const inA = await api.http.post(`${API}/carriers/`).set(auth).set('X-Service-Account-ID', a).set('Idempotency-Key', 'multi-key-0001').send(body).expect(201);
    const inB = await api.http.post(`${API}/carriers/`).set(auth).set('X-Service-Account-ID', b).set('Idempotency-Key', 'multi-key-0001').send(body).expect(201);
    expect(inB.body.id).not.toBe(inA.body.id);
    const noSelection = await api.http.post(`${API}/carriers/`).set(auth).set('Idempotency-Key', 'multi-key-0002').send(body).expect(400);
    expect(noSelection.body.code).toBe('account_selection_required');
  });

  it('lets an expired key be used again for a new request', async () => {
    await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'expiring-key-01').send({ name: 'Old', mode: 'road' }).expect(201);
    await dataSourceOf(api.app).query(`UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE idempotency_key = 'expiring-key-01'`);
    const fresh = await api.http.post(`${API}/carriers/`).set(tenant.auth).set('Idempotency-Key', 'expiring-key-01').send({ name: 'New', mode: 'road' }).expect(201);
    expect(fresh.body.name).toBe('New');
  });
});
