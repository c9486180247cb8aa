import { API, startApi, type TestApi } from '../support/api';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { insertUser } from '../support/users';

describe('/users/ and /roles/', () => {
  let api: TestApi;
  let tenant: Tenant;
  let admin: string;
  let regular: string;
  let staff: string;
  let superuser: string;
  let stranger: string;
  const user = (id: string) => `${API}/users/${id}/`;

  beforeAll(async () => {
    api = await startApi();
    tenant = await createTenant(api.app, ['users:read', 'users:write']);
    const dataSource = dataSourceOf(api.app);
    admin = await insertUser(dataSource, { accountId: tenant.accountId, role: 'COMPANY_ADMIN' });
    regular = await insertUser(dataSource, { accountId: tenant.accountId, role: 'OPERATOR', passwordHash: 'scrypt$16384$8$1$c2FsdA$aGFzaA' });
    staff = await insertUser(dataSource, { accountId: tenant.accountId, role: null, staff: true });
    superuser = await insertUser(dataSource, { accountId: tenant.accountId, role: 'MANAGER', superuser: true });
    const other = await createTenant(api.app, ['users:read']);
    stranger = await insertUser(dataSource, { accountId: other.accountId, role: 'VIEWER' });
  });
  afterAll(() => api.close());

  it('lists only the account’s customer users, without hashes or platform flags', async () => {
    const res = await api.http.get(`${API}/users/`).set(tenant.auth).expect(200);
    expect(res.body.data.map((u: { id: string }) => u.id)).toEqual([admin, regular]);
    for (const listed of res.body.data) {
      expect(Object.keys(listed).sort()).toEqual(
        ['created_at', 'deactivated_at', 'email', 'full_name', 'id', 'is_active', 'locale', 'phone', 'role', 'updated_at'],
      );
    }
    expect(JSON.stringify(res.body)).not.toMatch(/scrypt|password|staff|superuser/);
  });

  it('answers 404 for platform staff, superusers and users of other accounts on every operation', async () => {
    for (const id of [staff, superuser, stranger]) {
      await api.http.get(user(id)).set(tenant.auth).expect(404);
      await api.http.patch(user(id)).set(tenant.auth).send({ full_name: 'Changed' }).expect(404);
      await api.http.delete(user(id)).set(tenant.auth).expect(404);
    }
    const [row] = await dataSourceOf(api.app).query('SELECT full_name, is_active FROM users WHERE id = $1', [staff]);
    expect(row).toEqual({ full_name: 'Test User', is_active: true });
  });

  it('updates profile fields and an assignable role, changing only the fields sent', async () => {
    const res = await api.http.patch(user(regular)).set(tenant.auth).send({ full_name: 'Ayşe Kaya', phone: '+905321234567', locale: 'tr-TR' }).expect(200);
    expect(res.body).toMatchObject({ id: regular, full_name: 'Ayşe Kaya', phone: '+905321234567', locale: 'tr-TR', role: 'OPERATOR' });
    const promoted = await api.http.patch(user(regular)).set(tenant.auth).send({ role: 'MANAGER', phone: null }).expect(200);
    expect(promoted.body).toMatchObject({ full_name: 'Ayşe Kaya', phone: null, locale: 'tr-TR', role: 'MANAGER' });
  });

  it('moves updated_at only when a value changes', async () => {
    const before = (await api.http.get(user(regular)).set(tenant.auth).expect(200)).body;
    const repeated = await api.http.patch(user(regular)).set(tenant.auth).send({ full_name: before.full_name, phone: before.phone, role: before.role }).expect(200);
    expect(repeated.body).toEqual(before);
    const changed = await api.http.patch(user(regular)).set(tenant.auth).send({ locale: before.locale === 'de-DE' ? 'en-GB' : 'de-DE' }).expect(200);
    expect(Date.parse(changed.body.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
  });

  it.each([
    [{ email: 'new@example.com' }, 'email', 'unknown_field'],
    [{ is_active: true }, 'is_active', 'unknown_field'],
    [{ is_superuser: true }, 'is_superuser', 'unknown_field'],
    [{ is_platform_staff: true }, 'is_platform_staff', 'unknown_field'],
    [{ password: 'x'.repeat(20) }, 'password', 'unknown_field'],
    [{ role: 'OWNER' }, 'role', 'isIn'],
    [{ role: null }, 'role', 'isIn'],
    [{ full_name: '' }, 'full_name', 'isLength'],
    [{ locale: 'turkish' }, 'locale', 'matches'],
    [{ phone: '12345' }, 'phone', 'matches'],
  ])('refuses %j', async (body, field, code) => {
    const res = await api.http.patch(user(regular)).set(tenant.auth).send(body).expect(400);
    expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
  });

  it('refuses to grant COMPANY_ADMIN (409 role_not_assignable)', async () => {
    const res = await api.http.patch(user(regular)).set(tenant.auth).send({ role: 'COMPANY_ADMIN' }).expect(409);
    expect(res.body.code).toBe('role_not_assignable');
    expect((await api.http.get(user(regular)).set(tenant.auth).expect(200)).body.role).not.toBe('COMPANY_ADMIN');
  });

  it('refuses to change a company administrator’s role but lets its profile be edited', async () => {
    const res = await api.http.patch(user(admin)).set(tenant.auth).send({ role: 'VIEWER', full_name: 'Demoted' }).expect(409);
    expect(res.body.code).toBe('company_admin_protected');
    const unchanged = await api.http.get(user(admin)).set(tenant.auth).expect(200);
    expect(unchanged.body).toMatchObject({ role: 'COMPANY_ADMIN', full_name: 'Test User' });
    await api.http.patch(user(admin)).set(tenant.auth).send({ role: 'COMPANY_ADMIN' }).expect(200);
    const renamed = await api.http.patch(user(admin)).set(tenant.auth).send({ full_name: 'Aylin Aksoy' }).expect(200);
    expect(renamed.body).toMatchObject({ role: 'COMPANY_ADMIN', full_name: 'Aylin Aksoy' });
  });

  it('deactivates a regular user, idempotently, and leaves company administrators untouched', async () => {
    const victim = await insertUser(dataSourceOf(api.app), { accountId: tenant.accountId, role: 'VIEWER' });
    await api.http.delete(user(victim)).set(tenant.auth).expect(204);
    const deactivated = await api.http.get(user(victim)).set(tenant.auth).expect(200);
    expect(deactivated.body).toMatchObject({ is_active: false, deactivated_at: expect.any(String) });
    await api.http.delete(user(victim)).set(tenant.auth).expect(204);
    expect((await api.http.get(user(victim)).set(tenant.auth).expect(200)).body.deactivated_at).toBe(deactivated.body.deactivated_at);

    const res = await api.http.delete(user(admin)).set(tenant.auth).expect(409);
    expect(res.body.code).toBe('company_admin_protected');
    expect((await api.http.get(user(admin)).set(tenant.auth).expect(200)).body).toMatchObject({ is_active: true, deactivated_at: null });
  });

  it('requires users:write to change users', async () => {
    const reader = await createTenant(api.app, ['users:read']);
    const res = await api.http.patch(user(regular)).set(reader.auth).send({ full_name: 'x' }).expect(403);
    expect(res.body.code).toBe('insufficient_scope');
    await api.http.delete(user(regular)).set(reader.auth).expect(403);
  });

  it('lists the roles with display names, COMPANY_ADMIN not assignable', async () => {
    const res = await api.http.get(`${API}/roles/`).set(tenant.auth).expect(200);
    expect(res.body.links).toEqual({ next: null });
    expect(res.body.data.map((r: { role: string; assignable: boolean }) => [r.role, r.assignable])).toEqual([
      ['COMPANY_ADMIN', false],
      ['MANAGER', true],
      ['OPERATOR', true],
      ['VIEWER', true],
    ]);
    for (const role of res.body.data) expect(role).toEqual({ role: role.role, display_name: expect.any(String), description: expect.any(String), assignable: role.assignable });
    const denied = await api.http.get(`${API}/roles/`).set((await createTenant(api.app, ['accounts:read'])).auth).expect(403);
    expect(denied.headers['www-authenticate']).toContain('users:read');
  });
});
