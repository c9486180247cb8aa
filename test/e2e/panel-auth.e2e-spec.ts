import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { startApi, type TestApi } from '../support/api';
import { listRoutes } from '../support/routes';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { csrfOf, insertPanelUser, openSignIn, PANEL_PASSWORD, type PanelUser, setCookieLine, signIn } from '../support/panel';

const GENERIC = 'The e-mail address or password is incorrect, or this account cannot use the panel.';

describe('web panel: sign-in, sessions, CSRF, roles', () => {
  let api: TestApi;
  let dataSource: DataSource;
  let accountId: string;
  let admin: PanelUser;

  beforeAll(async () => {
    api = await startApi();
    dataSource = dataSourceOf(api.app);
    accountId = await createAccount(dataSource, 'Panel Auth Co');
    admin = await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN');
  });
  afterAll(() => api.close());

  const sessionRows = async (email: string): Promise<Array<{ id: string; token_hash: Buffer }>> =>
    dataSource.query('SELECT s.id, s.token_hash FROM panel_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1', [email]);

  it('serves the sign-in page with strict headers and a sign-in CSRF cookie', async () => {
    const res = await api.raw.get('/panel/sign-in/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('script-src');
    expect(res.text).not.toContain('<script');
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.text).toContain('<a class="skip-link" href="#main">Skip to main content</a>');
    expect(res.text).toMatch(/<label for="email">E-mail address<\/label>\s*<input id="email" name="email" type="email"/);
    expect(res.text).toMatch(/<label for="password">Password<\/label>\s*<input id="password" name="password" type="password" autocomplete="current-password"/);
    expect(res.text).toContain('aria-live="polite"');
    const cookie = setCookieLine(res.headers, 'cc_panel_sign_in');
    expect(cookie).toMatch(/; Path=\/panel; HttpOnly; SameSite=Lax$/);
    const css = await api.raw.get('/panel/assets/panel.css').expect(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.text).toContain(':focus-visible');
  });

  it('sends a visitor without a session to sign-in and back to the page asked for', async () => {
    const res = await api.raw.get('/panel/credentials/').expect(303);
    expect(res.headers.location).toBe('/panel/sign-in/?next=%2Fpanel%2Fcredentials%2F');
    const { agent, csrf } = await openSignIn(api);
    const signedIn = await agent
      .post('/panel/sign-in/')
      .type('form')
      .send({ _csrf: csrf, email: admin.email, password: PANEL_PASSWORD, next: '/panel/credentials/' })
      .expect(303);
    expect(signedIn.headers.location).toBe('/panel/credentials/');
    const offsite = await openSignIn(api);
    const refused = await offsite.agent
      .post('/panel/sign-in/')
      .type('form')
      .send({ _csrf: offsite.csrf, email: admin.email, password: PANEL_PASSWORD, next: 'https://evil.example/' })
      .expect(303);
    expect(refused.headers.location).toBe('/panel/');
  });

  it('protects every panel route but sign-in and the stylesheet with the panel session (declared @PanelSession, never @Public)', async () => {
    const routes = listRoutes(api.app).filter((r) => r.route.split(' ')[1].startsWith('/panel/'));
    expect(routes.length).toBeGreaterThan(15);
    const open = ['GET /panel/sign-in/', 'POST /panel/sign-in/', 'GET /panel/assets/panel.css/'];
    for (const { route, access } of routes) {
      expect({ route, access }).toEqual({ route, access: open.includes(route) ? 'panel-public' : 'panel-session' });
      if (open.includes(route)) continue;
      const [method, template] = route.split(' ');
      const path = template.replace(/:[a-z_]+/g, '01900000-0000-7000-8000-000000000001');
      const res = await (method === 'GET' ? api.raw.get(path) : api.raw.post(path).type('form').send({}));
      expect({ route, status: res.status, location: res.headers.location?.split('?')[0] }).toEqual({ route, status: 303, location: '/panel/sign-in/' });
    }
  });

  it('signs in with a session cookie (httpOnly, SameSite=Lax, path /panel) whose id is stored only as a hash', async () => {
    const { agent, csrf } = await openSignIn(api);
    const res = await agent.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email: admin.email.toUpperCase(), password: PANEL_PASSWORD }).expect(303);
    const cookie = setCookieLine(res.headers, 'cc_panel_session') as string;
    expect(cookie).toMatch(/^cc_panel_session=[A-Za-z0-9_-]{43}; Path=\/panel; HttpOnly; SameSite=Lax$/);
    const value = cookie.split(';')[0].split('=')[1];
    const rows = await sessionRows(admin.email);
    expect(rows.some((row) => row.token_hash.equals(createHash('sha256').update(value).digest()))).toBe(true);
    const stored = JSON.stringify(await dataSource.query('SELECT * FROM panel_sessions'));
    expect(stored).not.toContain(value);
    const home = await agent.get('/panel/').expect(200);
    expect(home.text).toContain('Panel Auth Co');
    expect(home.text).toContain('<h1>Overview</h1>');
    expect(home.headers['cache-control']).toBe('no-store');
    // Signed in already: the sign-in page sends the person on.
    await agent.get('/panel/sign-in/?next=/panel/webhooks/').expect(303).expect('Location', '/panel/webhooks/');
  });

  it('marks the cookies Secure when the panel is served over https', async () => {
    const https = await startApi({ PUBLIC_BASE_URL: 'https://panel.example.com' });
    try {
      // The test client speaks plain http, so the cookies are read from the headers and sent by hand.
      const page = await https.raw.get('/panel/sign-in/').expect(200);
      const nonceCookie = setCookieLine(page.headers, 'cc_panel_sign_in') as string;
      expect(nonceCookie).toMatch(/; Path=\/panel; HttpOnly; Secure; SameSite=Lax$/);
      expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
      const res = await https.raw
        .post('/panel/sign-in/')
        .set('Cookie', nonceCookie.split(';')[0])
        .type('form')
        .send({ _csrf: csrfOf(page.text), email: admin.email, password: PANEL_PASSWORD })
        .expect(303);
      expect(setCookieLine(res.headers, 'cc_panel_session')).toMatch(/; Path=\/panel; HttpOnly; Secure; SameSite=Lax$/);
    } finally {
      await https.close();
    }
  });

  it('refuses bad credentials, unknown addresses, staff, superusers and inactive users or accounts with one generic error', async () => {
    const suspended = await createAccount(dataSource, 'Suspended Co', { status: 'suspended' });
    const demo = await createAccount(dataSource, 'Demo Kind Co', { kind: 'demo' });
    const staff = await insertPanelUser(dataSource, null, null, { staff: true });
    const staffOfAccount = await insertPanelUser(dataSource, accountId, null, { staff: true });
    const superuser = await insertPanelUser(dataSource, null, null, { superuser: true });
    const ofSuspended = await insertPanelUser(dataSource, suspended, 'COMPANY_ADMIN');
    const ofDemo = await insertPanelUser(dataSource, demo, 'COMPANY_ADMIN');
    const deactivated = await insertPanelUser(dataSource, accountId, 'VIEWER');
    await dataSource.query('UPDATE users SET is_active = false, deactivated_at = now() WHERE id = $1', [deactivated.id]);
    const attempts: Array<[string, string]> = [
      [admin.email, 'wrong password entirely'],
      ['nobody@example.com', PANEL_PASSWORD],
      [staff.email, PANEL_PASSWORD],
      [staffOfAccount.email, PANEL_PASSWORD],
      [superuser.email, PANEL_PASSWORD],
      [ofSuspended.email, PANEL_PASSWORD],
      [ofDemo.email, PANEL_PASSWORD],
      [deactivated.email, PANEL_PASSWORD],
    ];
    for (const [email, password] of attempts) {
      const { agent, csrf } = await openSignIn(api);
      const res = await agent.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email, password });
      expect({ email, status: res.status }).toEqual({ email, status: 400 });
      expect(res.text).toContain(GENERIC);
      expect(res.text).toContain('role="alert"');
      expect(res.text).not.toContain(password);
      expect(setCookieLine(res.headers, 'cc_panel_session')).toBeUndefined();
    }
    const { agent, csrf } = await openSignIn(api);
    const empty = await agent.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email: '', password: '' }).expect(400);
    expect(empty.text).toContain('Enter your e-mail address.');
    expect(empty.text).toContain('aria-invalid="true"');
  });

  it('refuses a sign-in form without its CSRF token (login CSRF)', async () => {
    const { agent, csrf } = await openSignIn(api);
    for (const token of [undefined, '', 'forged', `${csrf}x`]) {
      const res = await agent.post('/panel/sign-in/').type('form').send({ ...(token === undefined ? {} : { _csrf: token }), email: admin.email, password: PANEL_PASSWORD });
      expect(res.status).toBe(403);
      expect(res.text).toContain('This form could not be accepted');
      expect(setCookieLine(res.headers, 'cc_panel_session')).toBeUndefined();
    }
    // The right token without the cookie it was made for.
    await api.raw.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email: admin.email, password: PANEL_PASSWORD }).expect(403);
  });

  it('refuses every state-changing form without the session CSRF token (403, nothing changed)', async () => {
    const session = await signIn(api, admin.email);
    const other = await signIn(api, admin.email);
    expect(other.csrf).not.toBe(session.csrf);
    const count = async (): Promise<number> => Number((await dataSource.query('SELECT count(*) FROM api_credentials WHERE owner_account_id = $1', [accountId]))[0].count);
    const before = await count();
    for (const token of [undefined, '', 'wrong', other.csrf]) {
      const res = await session.agent
        .post('/panel/credentials/')
        .type('form')
        .send({ ...(token === undefined ? {} : { _csrf: token }), name: 'Forged', scopes: 'accounts:read' });
      expect(res.status).toBe(403);
      expect(res.text).toContain('This form could not be accepted');
    }
    for (const path of ['/panel/webhooks/', '/panel/sign-out/']) await session.agent.post(path).type('form').send({ url: 'https://x.example/' }).expect(403);
    // JSON bodies are no way around it either.
    await session.agent.post('/panel/credentials/').send({ name: 'Forged', scopes: ['accounts:read'] }).expect(403);
    expect(await count()).toBe(before);
    await session.agent.get('/panel/').expect(200); // still signed in
  });

  it('ends a session after 30 idle minutes or 12 hours, on sign-out, and when the user is deactivated', async () => {
    const user = await insertPanelUser(dataSource, accountId, 'VIEWER');
    const idle = await signIn(api, user.email);
    await dataSource.query(`UPDATE panel_sessions SET last_seen_at = now() - interval '29 minutes' WHERE user_id = $1`, [user.id]);
    await idle.agent.get('/panel/').expect(200);
    await dataSource.query(`UPDATE panel_sessions SET last_seen_at = now() - interval '31 minutes' WHERE user_id = $1`, [user.id]);
    const expired = await idle.agent.get('/panel/').expect(303);
    expect(expired.headers.location).toBe('/panel/sign-in/?notice=session_expired&next=%2Fpanel%2F');
    expect(await sessionRows(user.email)).toEqual([]);
    const notice = await idle.agent.get(expired.headers.location).expect(200);
    expect(notice.text).toContain('Your session has ended. Please sign in again.');

    const absolute = await signIn(api, user.email);
    await dataSource.query(`UPDATE panel_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.id]);
    await absolute.agent.get('/panel/').expect(303);
    const post = await absolute.agent.post('/panel/sign-out/').type('form').send({ _csrf: absolute.csrf }).expect(303);
    expect(post.headers.location).toBe('/panel/sign-in/');

    const signedOut = await signIn(api, user.email);
    const out = await signedOut.agent.post('/panel/sign-out/').type('form').send({ _csrf: signedOut.csrf }).expect(303);
    expect(out.headers.location).toBe('/panel/sign-in/?notice=signed_out');
    expect(setCookieLine(out.headers, 'cc_panel_session')).toMatch(/^cc_panel_session=; Path=\/panel; Expires=Thu, 01 Jan 1970/);
    expect(await sessionRows(user.email)).toEqual([]);
    await signedOut.agent.get('/panel/').expect(303);

    const deactivated = await signIn(api, user.email);
    await dataSource.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
    await deactivated.agent.get('/panel/').expect(303);
    expect(await sessionRows(user.email)).toEqual([]);
  });

  it('lets only company administrators manage credentials, administrators and managers webhooks; every role reads webhooks', async () => {
    const roles = ['COMPANY_ADMIN', 'MANAGER', 'OPERATOR', 'VIEWER'] as const;
    const expected = { COMPANY_ADMIN: [200, 200], MANAGER: [403, 200], OPERATOR: [403, 200], VIEWER: [403, 200] };
    for (const role of roles) {
      const user = await insertPanelUser(dataSource, accountId, role);
      const { agent, csrf } = await signIn(api, user.email);
      const home = await agent.get('/panel/').expect(200);
      const credentials = await agent.get('/panel/credentials/');
      const webhooks = await agent.get('/panel/webhooks/');
      expect({ role, statuses: [credentials.status, webhooks.status] }).toEqual({ role, statuses: expected[role] });
      expect(home.text.includes('href="/panel/credentials/"')).toBe(role === 'COMPANY_ADMIN');
      expect(home.text.includes('href="/panel/webhooks/"')).toBe(true);
      const manages = role === 'COMPANY_ADMIN' || role === 'MANAGER';
      expect({ role, addLink: webhooks.text.includes('href="/panel/webhooks/new/"') }).toEqual({ role, addLink: manages });
      expect({ role, readOnlyNote: webhooks.text.includes('id="read-only-note"') }).toEqual({ role, readOnlyNote: !manages });
      if (credentials.status === 403) {
        expect(credentials.text).toContain('You cannot use this page');
        await agent.post('/panel/credentials/').type('form').send({ _csrf: csrf, name: 'Not allowed', scopes: 'accounts:read' }).expect(403);
        await agent.get('/panel/credentials/new/').expect(403);
      }
      if (!manages) {
        await agent.get('/panel/webhooks/new/').expect(403);
        await agent.post('/panel/webhooks/').type('form').send({ _csrf: csrf, url: 'https://hooks.example.com/', events: 'alarm.created', description: 'Not allowed' }).expect(403);
      }
    }
    expect(Number((await dataSource.query(`SELECT count(*) FROM api_credentials WHERE name = 'Not allowed'`))[0].count)).toBe(0);
    expect(Number((await dataSource.query(`SELECT count(*) FROM webhook_endpoints WHERE description = 'Not allowed'`))[0].count)).toBe(0);
  });

  it('throttles sign-in per (e-mail, client network) with growing delays, never locking the owner out from elsewhere; per client address too', async () => {
    const target = await insertPanelUser(dataSource, accountId, 'VIEWER');
    const attempt = async (password: string, ip = '198.51.100.10', email = target.email) => {
      const { agent, csrf } = await openSignIn(api);
      return agent.post('/panel/sign-in/').set('X-Forwarded-For', ip).type('form').send({ _csrf: csrf, email, password });
    };
    // Five failures are free; of the next two (sent at once) one takes the first delayed turn, the other must wait.
    for (let i = 0; i < 5; i += 1) expect((await attempt(`wrong-${i}`)).status).toBe(400);
    const turns = await Promise.all([attempt('wrong-5'), attempt('wrong-6')]);
    expect(turns.map((res) => res.status).sort()).toEqual([400, 429]);
    const limited = turns.find((res) => res.status === 429) as (typeof turns)[number];
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.text).toContain('Too many sign-in attempts.');
    expect(setCookieLine(limited.headers, 'cc_panel_session')).toBeUndefined();
    // The owner, from another network, is not locked out by them (it was: five failures from anywhere locked the e-mail for 15 minutes).
    expect((await attempt(PANEL_PASSWORD, '198.51.100.11')).status).toBe(303);
    // Unknown addresses are throttled the same way: being throttled says nothing about an account.
    for (let i = 0; i < 5; i += 1) expect((await attempt('x', '198.51.100.12', 'ghost@example.com')).status).toBe(400);
    const ghostTurns = await Promise.all([0, 1].map(() => attempt('x', '198.51.100.12', 'ghost@example.com')));
    expect(ghostTurns.map((res) => res.status).sort()).toEqual([400, 429]);

    // One address spraying many e-mails: the 31st attempt in the window is refused.
    const ip = '203.0.113.50';
    for (let i = 0; i < 30; i += 1) expect((await attempt('x', ip, `spray-${i}@example.com`)).status).toBe(400);
    expect((await attempt(PANEL_PASSWORD, ip, admin.email)).status).toBe(429);
    // Other clients are unaffected.
    expect((await attempt(PANEL_PASSWORD, '203.0.113.51', admin.email)).status).toBe(303);
  });
});
