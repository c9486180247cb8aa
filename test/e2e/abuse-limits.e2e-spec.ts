import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { SignInService } from '../../apps/api/src/panel/sign-in/sign-in.service';
import { InvitationsService } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { newKey } from '../support/catalogue';
import { listRoutes } from '../support/routes';
import { createAccount, createTenant, dataSourceOf } from '../support/fixtures';
import { csrfOf, insertPanelUser, openSignIn, PANEL_PASSWORD, type PanelBrowser, signIn } from '../support/panel';

/**
 * Limits on work a tenant (or anyone) can make the service do: every refusal is a 429 with
 * Retry-After, and the refused request does nothing.
 */
describe('rate limits on tenant-triggered work and brute force', () => {
  let api: TestApi;
  let dataSource: DataSource;

  const LIMITS = {
    PANEL_SIGN_IN_FAILURES_PER_EMAIL: '5',
    PANEL_SIGN_IN_ATTEMPTS_PER_IP: '1000',
    PANEL_POSTS_PER_MINUTE: '8',
    WEBHOOK_TEST_EVENTS_PER_HOUR: '3',
    WEBHOOK_ENDPOINT_CREATES_PER_HOUR: '2',
    INVITATION_ACCEPTS_PER_MINUTE: '3',
    TOKEN_RATE_LIMIT_PER_MINUTE: '3',
    USER_INVITATIONS_PER_HOUR: '2',
  };

  beforeAll(async () => {
    api = await startApi({ ...LIMITS, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    dataSource = dataSourceOf(api.app);
  });
  const replicas: TestApi[] = [];
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await api.close();
  });

  const post = (who: PanelBrowser, path: string, fields: Record<string, string | string[]> = {}) =>
    who.agent.post(path).type('form').send({ _csrf: who.csrf, ...fields });

  const endpointCount = async (accountId: string): Promise<number> =>
    Number((await dataSource.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1', [accountId]))[0].n);
  const testDeliveries = async (accountId: string): Promise<number> =>
    Number((await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1 AND origin = 'test'`, [accountId]))[0].n);

  function expectPanel429(res: { status: number; headers: Record<string, string>; text: string }): void {
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Too many requests');
  }

  describe('panel sign-in cannot be raced', () => {
    it('lets at most 5 of 30 parallel wrong passwords reach the password check; the rest get 429', async () => {
      const accountId = await createAccount(dataSource, 'Race Co');
      const target = await insertPanelUser(dataSource, accountId, 'VIEWER');
      const verify = jest.spyOn(api.app.get(SignInService), 'verify');
      try {
        const { agent, csrf } = await openSignIn(api);
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            agent
              .post('/panel/sign-in/')
              .set('X-Forwarded-For', `198.51.100.${i + 1}`)
              .type('form')
              .send({ _csrf: csrf, email: target.email, password: `wrong-${i}` }),
          ),
        );
        const statuses = answers.map((res) => res.status);
        expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(5);
        expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(25);
        expect(verify.mock.calls.length).toBeLessThanOrEqual(5);
        // The ceiling holds for every network where the address has not signed in (the right password too).
        const right = await agent.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email: target.email, password: PANEL_PASSWORD });
        expect(right.status).toBe(429);
        expect(verify.mock.calls.length).toBeLessThanOrEqual(5);
      } finally {
        verify.mockRestore();
      }
    });

    it('holds across api replicas: 30 parallel guesses split over two apps on one database, at most 5 checked', async () => {
      // Kept open until the suite ends: passport's strategy registry is process-wide, so the last
      // app started authenticates API tokens for both (a closed one would answer 401).
      const second = await startApi({ ...LIMITS, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
      replicas.push(second);
      const accountId = await createAccount(dataSource, 'Replica Race Co');
      const target = await insertPanelUser(dataSource, accountId, 'VIEWER');
      const spies = [jest.spyOn(api.app.get(SignInService), 'verify'), jest.spyOn(second.app.get(SignInService), 'verify')];
      try {
        const browsers = [await openSignIn(api), await openSignIn(second)];
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) => {
            const { agent, csrf } = browsers[i % 2];
            return agent.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email: target.email, password: `wrong-${i}` });
          }),
        );
        expect(answers.filter((res) => res.status !== 429).length).toBeLessThanOrEqual(5);
        expect(spies[0].mock.calls.length + spies[1].mock.calls.length).toBeLessThanOrEqual(5);
        const counter = await dataSource.query('SELECT points FROM rate_limit_counters WHERE key = $1', [`panel-sign-in-email:${target.email}`]);
        expect(counter).toEqual([{ points: 30 }]);
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    });

    it('still clears the failures of an address on a successful sign-in (reward on success)', async () => {
      const accountId = await createAccount(dataSource, 'Reward Co');
      const user = await insertPanelUser(dataSource, accountId, 'VIEWER');
      const { agent, csrf } = await openSignIn(api);
      const attempt = (password: string) => agent.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email: user.email, password });
      for (let i = 0; i < 4; i += 1) expect((await attempt(`wrong-${i}`)).status).toBe(400);
      await signIn(api, user.email);
      for (let i = 0; i < 4; i += 1) expect((await attempt(`wrong-again-${i}`)).status).toBe(400);
    });
  });

  describe('panel sign-in: a stranger cannot lock the owner out, and guessing stays bounded (OWASP)', () => {
    /** One sign-in form submitted from `ip` (a new browser each time: a success ends the sign-in page's nonce). */
    const from = async (ip: string, email: string, password: string) => {
      const browser = await openSignIn(api);
      return browser.agent.post('/panel/sign-in/').set('X-Forwarded-For', ip).type('form').send({ _csrf: browser.csrf, email, password });
    };

    it('lets the owner sign in from their network while an attack from 40 other networks spends the per-e-mail ceiling', async () => {
      const accountId = await createAccount(dataSource, 'Owner Co');
      const owner = await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN');
      const home = '203.0.113.7';
      expect((await from(home, owner.email, PANEL_PASSWORD)).status).toBe(303); // the owner's usual network
      expect((await from('2001:db8:4:5::1', owner.email, PANEL_PASSWORD)).status).toBe(303); // and their IPv6 /64
      const verify = jest.spyOn(api.app.get(SignInService), 'verify');
      try {
        const attack = [];
        for (let i = 0; i < 40; i += 1) attack.push((await from(`198.18.${i}.1`, owner.email, `guess-${i}`)).status);
        expect(attack.filter((status) => status === 400)).toHaveLength(5); // PANEL_SIGN_IN_FAILURES_PER_EMAIL of this suite
        expect(attack.filter((status) => status === 429)).toHaveLength(35);
        expect(verify.mock.calls.length).toBe(5);
        // During the attack the owner still gets in from home, even after a typo.
        expect((await from(home, owner.email, 'typo')).status).toBe(400);
        const signedIn = await from(home, owner.email, PANEL_PASSWORD);
        expect(signedIn.status).toBe(303);
        expect(signedIn.headers.location).toBe('/panel/');
        // From another address of their IPv6 /64 just the same (one client network)…
        expect((await from('2001:db8:4:5::99', owner.email, PANEL_PASSWORD)).status).toBe(303);
        // …while a network where the address never signed in meets the spent ceiling.
        expect((await from('198.18.200.1', owner.email, PANEL_PASSWORD)).status).toBe(429);
      } finally {
        verify.mockRestore();
      }
    });

    it('lets the owner sign in from a new network while other networks guess below the ceiling (no hard 15-minute lock)', async () => {
      const accountId = await createAccount(dataSource, 'Traveller Co');
      const owner = await insertPanelUser(dataSource, accountId, 'VIEWER');
      for (let i = 0; i < 4; i += 1) expect((await from('198.51.100.66', owner.email, `guess-${i}`)).status).toBe(400);
      expect((await from('192.0.2.80', owner.email, PANEL_PASSWORD)).status).toBe(303);
    });

    it('slows one network with growing delays after PANEL_SIGN_IN_FAILURES_PER_NETWORK failures, and bounds guessing from many networks by the ceiling', async () => {
      const accountId = await createAccount(dataSource, 'Delay Co');
      const owner = await insertPanelUser(dataSource, accountId, 'VIEWER');
      const office = '203.0.113.90'; // a network where the address signed in: exempt from the ceiling, not from the delays
      expect((await from(office, owner.email, PANEL_PASSWORD)).status).toBe(303);
      const verify = jest.spyOn(api.app.get(SignInService), 'verify');
      try {
        for (let i = 0; i < 5; i += 1) expect((await from(office, owner.email, `wrong-${i}`)).status).toBe(400);
        // Three at once (no timing luck needed): one takes the turn, the others are told to wait 1 s…
        const statusesAndWaits = (answers: Array<{ status: number; headers: Record<string, string> }>) =>
          answers.map((res) => `${res.status}${res.status === 429 ? ` wait ${res.headers['retry-after']}` : ''}`).sort();
        expect(statusesAndWaits(await Promise.all([0, 1, 2].map((i) => from(office, owner.email, `turn-a-${i}`))))).toEqual(['400', '429 wait 1', '429 wait 1']);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        // …then 2 s (doubled), and so on up to PANEL_SIGN_IN_MAX_DELAY_SECONDS.
        expect(statusesAndWaits(await Promise.all([0, 1, 2].map((i) => from(office, owner.email, `turn-b-${i}`))))).toEqual(['400', '429 wait 2', '429 wait 2']);
        expect(verify.mock.calls.length).toBe(7);

        // 60 networks, each new: the per-network budgets are untouched, the ceiling (5 here) stops them all.
        verify.mockClear();
        const spread = await Promise.all(Array.from({ length: 60 }, (_, i) => from(`2001:db8:${i.toString(16)}::1`, owner.email, `spread-${i}`)));
        expect(spread.filter((res) => res.status !== 429).length).toBeLessThanOrEqual(5);
        expect(verify.mock.calls.length).toBeLessThanOrEqual(5);
      } finally {
        verify.mockRestore();
      }
    });
  });

  describe('token endpoint per client address', () => {
    const form = { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' };
    const exchange = (ip: string) => api.raw.post(`${API}/oauth/token/`).set('X-Forwarded-For', ip).type('form').send(form);

    it('counts every address of one IPv6 /64 as one client', async () => {
      for (const ip of ['2001:db8:aa:1::1', '2001:db8:aa:1::2', '2001:db8:aa:1:ffff::9']) expect((await exchange(ip)).status).toBe(401);
      const limited = await exchange('2001:db8:aa:1:1234:5678:9abc:def0');
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Another /64 is another client.
      expect((await exchange('2001:db8:aa:2::1')).status).toBe(401);
    });

    it('counts an IPv4-mapped IPv6 address as the IPv4 address', async () => {
      for (let i = 0; i < 3; i += 1) expect((await exchange(i % 2 ? '::ffff:192.0.2.77' : '192.0.2.77')).status).toBe(401);
      expect((await exchange('::ffff:192.0.2.77')).status).toBe(429);
      expect((await exchange('192.0.2.77')).status).toBe(429);
    });
  });

  describe('webhook work per account (panel)', () => {
    let accountId: string;
    let admin: PanelBrowser;
    let manager: PanelBrowser;

    beforeAll(async () => {
      accountId = await createAccount(dataSource, 'Webhook Limits Co');
      admin = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
      manager = await signIn(api, (await insertPanelUser(dataSource, accountId, 'MANAGER')).email);
    });

    it('limits endpoint registration per account (both people of the company share it) and registers nothing when limited', async () => {
      const create = (who: PanelBrowser, n: number) => post(who, '/panel/webhooks/', { url: `https://127.0.0.1:9/hook-${n}`, events: 'alarm.created' });
      expect((await create(admin, 1)).status).toBe(200);
      expect((await create(manager, 2)).status).toBe(200);
      const limited = await create(admin, 3);
      expectPanel429(limited);
      expectPanel429(await create(manager, 4));
      expect(await endpointCount(accountId)).toBe(2);
    });

    it('limits test events per account and queues no extra test delivery when limited', async () => {
      const [endpoint] = await dataSource.query('SELECT id FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at LIMIT 1', [accountId]);
      const send = (who: PanelBrowser) => post(who, `/panel/webhooks/${endpoint.id}/test/`);
      for (const who of [admin, manager, admin]) expect((await send(who)).status).toBe(303);
      expect(await testDeliveries(accountId)).toBe(3);
      expectPanel429(await send(manager));
      expect(await testDeliveries(accountId)).toBe(3);
      // A manual resend is the same kind of work and shares the budget.
      const [delivered] = await dataSource.query(`SELECT event_id FROM webhook_deliveries WHERE account_id = $1 AND origin = 'test' LIMIT 1`, [accountId]);
      expectPanel429(await post(admin, `/panel/webhooks/${endpoint.id}/resend/`, { event_id: delivered.event_id }));
      const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1 AND origin <> 'test'`, [accountId]);
      expect(n).toBe(0);
    });
  });

  describe('every panel POST per signed-in person', () => {
    it('refuses the POST over the limit with a 429 page and changes nothing', async () => {
      const accountId = await createAccount(dataSource, 'Busy Co');
      const person = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
      const credentials = async (): Promise<number> =>
        Number((await dataSource.query('SELECT count(*)::int AS n FROM api_credentials WHERE owner_account_id = $1', [accountId]))[0].n);
      for (let i = 0; i < 8; i += 1) expect((await post(person, '/panel/credentials/', { name: `C${i}`, scopes: 'accounts:read' })).status).toBe(200);
      expect(await credentials()).toBe(8);
      const limited = await post(person, '/panel/credentials/', { name: 'One too many', scopes: 'accounts:read' });
      expectPanel429(limited);
      expect(limited.text).toContain('Nothing was changed');
      expect(await credentials()).toBe(8);
      // Reading pages is not limited; another person of the same company is not affected.
      const home = await person.agent.get('/panel/').expect(200);
      expect(csrfOf(home.text)).toBe(person.csrf);
      const colleague = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
      expect((await post(colleague, '/panel/credentials/', { name: 'Colleague', scopes: 'accounts:read' })).status).toBe(200);
    });
  });

  describe('no panel POST route escapes the limits', () => {
    it('answers 429 on every panel POST route once the person has spent the budget (sign-in and sign-out have their own rules)', async () => {
      const routes = listRoutes(api.app)
        .map((r) => r.route)
        .filter((route) => route.startsWith('POST /panel/'))
        .sort((a, b) => Number(a === 'POST /panel/sign-out/') - Number(b === 'POST /panel/sign-out/')); // it ends the session: last
      expect(routes.length).toBeGreaterThanOrEqual(9);
      const accountId = await createAccount(dataSource, 'Every Route Co');
      const person = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
      for (let i = 0; i < 8; i += 1) expect((await post(person, '/panel/credentials/', { name: '' })).status).toBe(400); // spent, even on refusals
      const statuses: Record<string, number> = {};
      for (const route of routes) {
        const path = route.slice('POST '.length).replace(/:[a-z_]+/g, randomUUID());
        statuses[route] = (await post(person, path, { name: 'x', scopes: 'accounts:read', url: 'https://127.0.0.1:9/x', events: 'alarm.created', event_id: randomUUID() })).status;
      }
      for (const route of routes) {
        const expected = route === 'POST /panel/sign-in/' ? 403 /* no sign-in form token: refused before any limit */ : route === 'POST /panel/sign-out/' ? 303 : 429;
        expect({ route, status: statuses[route] }).toEqual({ route, status: expected });
      }
    });
  });

  describe('user invitations (e-mails) per account (API)', () => {
    it('answers 429 problem details with Retry-After over the limit, sends nothing, and still replays a stored answer', async () => {
      const tenant = await createTenant(api.app, ['users:read', 'users:invite'], 'Inviting Co');
      const invitations = async (): Promise<number> =>
        Number((await dataSource.query('SELECT count(*)::int AS n FROM user_invitations WHERE account_id = $1', [tenant.accountId]))[0].n);
      const invite = (n: number, key = newKey()) =>
        api.http.post(`${API}/user-invitations/`).set(tenant.auth).set('Idempotency-Key', key).send({ email: `person-${n}@example.com`, full_name: `Person ${n}`, role: 'OPERATOR' });
      const firstKey = newKey();
      expect((await invite(1, firstKey)).status).toBe(201);
      expect((await invite(2)).status).toBe(201);
      const limitedKey = newKey();
      const limited = await invite(3, limitedKey);
      expect(limited.status).toBe(429);
      expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(await invitations()).toBe(2);
      // A replay of an earlier request is its stored answer, not a refusal; a refusal is not stored.
      const replay = await invite(1, firstKey);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect((await invite(3, limitedKey)).status).toBe(429);
      expect(await invitations()).toBe(2);
    });
  });

  describe('invitation password page per client address', () => {
    it('refuses the POST over the limit with 429 before looking at the token', async () => {
      const check = jest.spyOn(api.app.get(InvitationsService), 'check');
      try {
        const submit = (ip: string) =>
          api.raw.post('/invitations/accept/').set('X-Forwarded-For', ip).type('form').send({ token: 'x'.repeat(43), password: PANEL_PASSWORD, password_confirmation: PANEL_PASSWORD });
        for (const ip of ['2001:db8:bb:1::1', '2001:db8:bb:1::2', '2001:db8:bb:1::3']) expect((await submit(ip)).status).not.toBe(429);
        const calls = check.mock.calls.length;
        const limited = await submit('2001:db8:bb:1::4');
        expect(limited.status).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
        expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(limited.text).toContain('Too many attempts');
        expect(check.mock.calls.length).toBe(calls);
        expect((await submit('203.0.113.99')).status).not.toBe(429);
      } finally {
        check.mockRestore();
      }
    });
  });
});
