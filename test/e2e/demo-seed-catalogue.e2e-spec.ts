import type { DemoFixture } from '../../apps/cli/src/demo/demo-context';
import { seedDemo } from '../../apps/cli/src/demo/demo-seed';
import { API, startApi, type TestApi } from '../support/api';
import { dataSourceOf } from '../support/fixtures';

describe('demo:seed — users and catalogue records', () => {
  let api: TestApi;
  let fixture: DemoFixture;
  const bearer = async (key: 'single' | 'other') => {
    const { client_id, client_secret } = fixture.credentials[key];
    const res = await api.raw.post(`${API}/oauth/token/`).type('form').send({ grant_type: 'client_credentials', client_id, client_secret }).expect(200);
    return { Authorization: `Bearer ${res.body.access_token as string}` };
  };

  beforeAll(async () => {
    api = await startApi();
    const seed = () => seedDemo(dataSourceOf(api.app), api.config.secretsKey, api.config.publicBaseUrl);
    await seed();
    fixture = await seed(); // a second run finds everything in place
  });
  afterAll(() => api.close());

  it('adds the users section of DESIGN §7', () => {
    expect(fixture.users).toEqual({ admin: expect.any(String), regular: expect.any(String), staff: expect.any(String) });
  });

  it('exposes the admin and the regular user of primary, never the staff user', async () => {
    const auth = await bearer('single');
    const users = fixture.users as Record<'admin' | 'regular' | 'staff', string>;
    const list = await api.http.get(`${API}/users/`).set(auth).expect(200);
    const byId = new Map(list.body.data.map((u: { id: string; role: string }) => [u.id, u.role]));
    expect(byId.get(users.admin)).toBe('COMPANY_ADMIN');
    expect(byId.get(users.regular)).toBe('OPERATOR');
    expect(byId.has(users.staff)).toBe(false);
    await api.http.get(`${API}/users/${users.staff}/`).set(auth).expect(404);
  });

  it('gives primary a few records of each family and other one, each readable only by its owner', async () => {
    const primary = await bearer('single');
    const other = await bearer('other');
    for (const collection of ['locations', 'carriers', 'receivers', 'alert-presets', 'shipment-templates']) {
      const mine = await api.http.get(`${API}/${collection}/`).set(primary).expect(200);
      const theirs = await api.http.get(`${API}/${collection}/`).set(other).expect(200);
      expect(mine.body.data.length).toBeGreaterThanOrEqual(2);
      expect(theirs.body.data).toHaveLength(1);
      await api.http.get(`${API}/${collection}/${theirs.body.data[0].id}/`).set(primary).expect(404);
    }
  });

  it('keeps seeded references in use', async () => {
    const primary = await bearer('single');
    const catalogue = fixture.catalogue as { primary: { locations: string[] } };
    const res = await api.http.delete(`${API}/locations/${catalogue.primary.locations[0]}/`).set(primary).expect(409);
    expect(res.body.code).toBe('in_use');
  });
});
