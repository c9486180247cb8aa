import { API, startApi, type TestApi } from '../support/api';
import { runCaptured } from '../support/cli';
import { createDatabase, dropDatabase } from '../support/database';
import { uniqueName } from '../support/test-env';

describe('ops CLI', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('creates an account and a credential whose secret is printed once and works', async () => {
    const account = await runCaptured('accounts:create', '--name', 'CLI Co', '--json');
    expect(account.code).toBe(0);
    const { id } = JSON.parse(account.stdout) as { id: string };
    const created = await runCaptured('credentials:create', '--name', 'ERP', '--accounts', id, '--scopes', 'accounts:read', '--json');
    expect(created.code).toBe(0);
    const credential = JSON.parse(created.stdout) as { client_id: string; client_secret: string; scopes: string[] };
    expect(credential.scopes).toEqual(['accounts:read']);
    const token = await api.http
      .post(`${API}/oauth/token/`)
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret })
      .expect(200);
    const auth = { Authorization: `Bearer ${token.body.access_token}` };
    const list = await api.http.get(`${API}/accounts/`).set(auth).expect(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id, name: 'CLI Co' })]);

    const revoked = await runCaptured('credentials:revoke', credential.client_id, '--json');
    expect(revoked.code).toBe(0);
    await api.http.get(`${API}/accounts/`).set(auth).expect(401);
    expect((await runCaptured('credentials:revoke', credential.client_id)).code).toBe(2);
  });

  it('db:migrate (the deployment\'s migration step) migrates an empty database, then applies nothing; a failure is one line, exit 2', async () => {
    const name = uniqueName('cc_cli_migrate');
    const saved = process.env.DATABASE_URL;
    try {
      process.env.DATABASE_URL = await createDatabase(name);
      const first = await runCaptured('db:migrate', '--json');
      expect(first.code).toBe(0);
      expect((JSON.parse(first.stdout) as { applied: string[] }).applied.length).toBeGreaterThan(10);
      const again = await runCaptured('db:migrate');
      expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: 'Schema up to date: no migration applied.\n' });
      process.env.DATABASE_URL = 'postgresql://postgres@127.0.0.1:1/nothing';
      const refused = await runCaptured('db:migrate');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^error: migration failed: .*\n$/);
    } finally {
      process.env.DATABASE_URL = saved;
      await dropDatabase(name);
    }
  });

  it('refuses bad arguments with a clear message and exit code 2', async () => {
    const cases: string[][] = [
      ['accounts:create'],
      ['accounts:create', '--name', 'X', '--kind', 'martian'],
      ['credentials:create', '--name', 'X', '--accounts', 'nope'],
      ['credentials:create', '--name', 'X', '--accounts', '00000000-0000-7000-8000-0000000000ff'],
      ['credentials:create', '--name', 'X', '--accounts', '00000000-0000-7000-8000-00000000a001', '--scopes', 'root'],
      ['no-such-command'],
    ];
    for (const argv of cases) {
      const result = await runCaptured(...argv);
      expect({ argv, code: result.code }).toEqual({ argv, code: 2 });
      expect(result.stderr).toMatch(/error/);
    }
  });

  it('seeds the demo fixture idempotently, and its credentials work as DESIGN §7 describes', async () => {
    const first = await runCaptured('demo:seed', '--json');
    const again = await runCaptured('demo:seed', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    const fixture = JSON.parse(first.stdout) as {
      base_url: string;
      accounts: Record<string, string>;
      credentials: Record<string, { client_id: string; client_secret: string; account_ids: string[]; scopes: string[] }>;
    };
    expect(Object.keys(fixture.accounts).sort()).toEqual(['internal', 'other', 'primary', 'secondary', 'suspended']);
    expect(fixture.credentials.multi.account_ids).toHaveLength(4);
    expect(fixture.credentials.readonly.scopes.every((s) => s.endsWith(':read'))).toBe(true);

    const tokenOf = async (key: string) => {
      const c = fixture.credentials[key];
      const res = await api.http.post(`${API}/oauth/token/`).type('form').send({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }).expect(200);
      return { Authorization: `Bearer ${res.body.access_token}` };
    };
    const multi = await tokenOf('multi');
    const listed = await api.http.get(`${API}/accounts/`).set(multi).expect(200);
    expect(listed.body.data.map((a: { id: string }) => a.id).sort()).toEqual([fixture.accounts.primary, fixture.accounts.secondary].sort());
    await api.http.get(`${API}/accounts/`).set(multi).set('X-Service-Account-ID', fixture.accounts.suspended).expect(403);
    const readonly = await tokenOf('readonly');
    await api.http.patch(`${API}/accounts/${fixture.accounts.primary}/`).set(readonly).send({ city: 'Izmir' }).expect(403);
  });
});
