import type { DataSource } from 'typeorm';
import { WebhookEndpointsService } from '@app/webhooks';
import { API, startApi, type TestApi } from '../support/api';
import { createAccount, createCredential, dataSourceOf } from '../support/fixtures';
import { insertPanelUser, type PanelBrowser, signIn } from '../support/panel';
import type { AccountId } from '@app/vocabulary';

const SECRET_IN_PAGE = /<input type="text" id="(?:client-secret|signing-secret)" value="([^"]+)" readonly/;

function secretOf(html: string): string {
  const match = SECRET_IN_PAGE.exec(html);
  if (!match) throw new Error(`no secret on the page:\n${html.slice(0, 800)}`);
  return match[1];
}

const submissionOf = (html: string): string => {
  const match = /<input type="hidden" name="submission" value="([0-9a-f-]{36})">/.exec(html);
  if (!match) throw new Error('no submission id in the form');
  return match[1];
};

/** The page's own content: the header's sign-out form is not one of the page's actions. */
const mainOf = (html: string): string => {
  const match = /<main id="main"[^>]*>([\s\S]*)<\/main>/.exec(html);
  if (!match) throw new Error('no <main> in the page');
  return match[1];
};

const idAfter = (html: string, prefix: string): string => {
  const match = new RegExp(`href="${prefix}([0-9a-f-]{36})/`).exec(html);
  if (!match) throw new Error(`no link ${prefix}… in the page`);
  return match[1];
};

describe('web panel: API credentials and webhook settings', () => {
  let api: TestApi;
  let dataSource: DataSource;
  let accountId: AccountId;
  let otherAccountId: AccountId;
  let admin: PanelBrowser;
  let service: WebhookEndpointsService;
  /** Every page served after a secret was displayed once: none may contain a secret again. */
  const pages: string[] = [];
  const secrets: string[] = [];

  const get = async (path: string, status = 200, who: PanelBrowser = admin): Promise<string> => {
    const res = await who.agent.get(path).expect(status);
    pages.push(res.text);
    return res.text;
  };
  const post = (path: string, fields: Record<string, string | string[]>, who: PanelBrowser = admin) =>
    who.agent.post(path).type('form').send({ _csrf: who.csrf, ...fields });

  beforeAll(async () => {
    api = await startApi();
    dataSource = dataSourceOf(api.app);
    accountId = await createAccount(dataSource, 'Panel Settings Co');
    otherAccountId = await createAccount(dataSource, 'Someone Else Co');
    admin = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
    service = new WebhookEndpointsService(dataSource, { secretsKey: api.config.secretsKey, allowPrivateTargets: true });
  });
  afterAll(() => api.close());

  it('creates a credential with chosen scopes, shows its secret once, and the secret works on the token endpoint', async () => {
    const form = await get('/panel/credentials/new/');
    expect(form).toMatch(/<label for="name">Name<\/label>/);
    expect(form).toContain('<legend>Scopes</legend>');
    expect(form).toContain('value="shipments:tracking:read"');

    const invalid = await post('/panel/credentials/', { name: '' });
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain('Enter a name for the credential.');
    expect(invalid.text).toContain('Choose at least one scope.');
    expect(invalid.text).toContain('<title>Error: create an API credential');

    const created = await post('/panel/credentials/', { name: 'ERP <sync>', scopes: ['accounts:read', 'devices:read'] });
    expect(created.status).toBe(200);
    expect(created.headers['cache-control']).toBe('no-store');
    const csp = created.headers['content-security-policy'] as string;
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(created.text).toContain('ERP &lt;sync&gt;');
    expect(created.text).toContain('it is shown only this once');
    expect(created.text).toContain('belongs in a backend secret vault');
    expect(created.text).toContain('data-copy="client-secret"');
    const secret = secretOf(created.text);
    secrets.push(secret);
    const clientId = /<code id="client-id">(cc_[0-9a-f]+)<\/code>/.exec(created.text)?.[1] as string;

    const token = await api.http.post(`${API}/oauth/token/`).type('form').send({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).expect(200);
    expect(token.body.scope).toBe('accounts:read devices:read');
    const accounts = await api.http.get(`${API}/accounts/`).set('Authorization', `Bearer ${token.body.access_token}`).expect(200);
    expect(accounts.body.data.map((a: { id: string }) => a.id)).toEqual([accountId]);

    const [row] = await dataSource.query('SELECT owner_account_id, secret_hash FROM api_credentials WHERE client_id = $1', [clientId]);
    expect(row.owner_account_id).toBe(accountId);
    expect(row.secret_hash).not.toContain(secret);

    const list = await get('/panel/credentials/');
    expect(list).toContain(clientId);
    expect(list).toContain('<span class="status ok">Active</span>');
    expect(list).toContain('<li><code>devices:read</code></li>');
    expect(list).toContain('<li>Panel Settings Co</li>');
    expect(list).toMatch(/data-label="Last used"><time datetime="/);
  });

  it('lists only the company’s own credentials and revokes one after confirmation', async () => {
    const foreign = await createCredential(dataSource, [otherAccountId]);
    await dataSource.query('UPDATE api_credentials SET owner_account_id = $1 WHERE client_id = $2', [otherAccountId, foreign.client_id]);
    const platform = await createCredential(dataSource, [accountId]);
    const list = await get('/panel/credentials/');
    expect(list).not.toContain(foreign.client_id);
    expect(list).not.toContain(platform.client_id);
    const foreignId = (await dataSource.query('SELECT id FROM api_credentials WHERE client_id = $1', [foreign.client_id]))[0].id;
    await get(`/panel/credentials/${foreignId}/revoke/`, 404);
    expect((await post(`/panel/credentials/${foreignId}/revoke/`, {})).status).toBe(404);
    await get('/panel/credentials/not-a-uuid/revoke/', 404);

    const created = await post('/panel/credentials/', { name: 'To revoke', scopes: 'accounts:read' });
    const secret = secretOf(created.text);
    secrets.push(secret);
    const clientId = /<code id="client-id">(cc_[0-9a-f]+)<\/code>/.exec(created.text)?.[1] as string;
    const id = idAfter(await get('/panel/credentials/'), '/panel/credentials/');
    const confirm = await get(`/panel/credentials/${id}/revoke/`);
    expect(confirm).toContain(clientId);
    expect(confirm).toContain('This cannot be undone.');
    const revoked = await post(`/panel/credentials/${id}/revoke/`, {});
    expect(revoked.status).toBe(303);
    expect(revoked.headers.location).toBe('/panel/credentials/?notice=credential_revoked');
    const after = await get(revoked.headers.location);
    expect(after).toContain('The credential was revoked.');
    expect(after).toContain('<span class="status bad">Revoked</span>');
    await api.http.post(`${API}/oauth/token/`).type('form').send({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).expect(401);
    expect((await post(`/panel/credentials/${id}/revoke/`, {})).headers.location).toBe('/panel/credentials/?notice=credential_already_revoked');
  });

  it('refuses an http:// address with a clear message and registers an https endpoint, showing its signing secret once', async () => {
    const form = await get('/panel/webhooks/new/');
    expect(form).toContain('<legend>Events to receive</legend>');
    expect(form).toContain('value="shipment.completed"');

    const http = await post('/panel/webhooks/', { url: 'http://hooks.example.com/in', events: 'alarm.created' });
    expect(http.status).toBe(400);
    expect(http.text).toContain('Only https:// addresses are accepted');
    expect(http.text).toContain('value="http://hooks.example.com/in"');
    expect(http.text).toMatch(/id="url"[^>]*aria-invalid="true"/);
    const noEvents = await post('/panel/webhooks/', { url: 'https://hooks.example.com/in' });
    expect(noEvents.status).toBe(400);
    expect(noEvents.text).toContain('Choose at least one event type to receive.');
    expect(await service.list(accountId)).toEqual([]);

    const created = await post('/panel/webhooks/', { url: 'https://localhost:9/in', events: ['alarm.created', 'shipment.completed'], description: 'ERP <hooks>' });
    expect(created.status).toBe(200);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.text).toContain('<dd>ERP &lt;hooks&gt;</dd>');
    const secret = secretOf(created.text);
    secrets.push(secret);
    const [endpoint] = await service.list(accountId);
    expect(endpoint).toMatchObject({ url: 'https://localhost:9/in', events: ['alarm.created', 'shipment.completed'], description: 'ERP <hooks>', status: 'enabled' });

    const list = await get('/panel/webhooks/');
    expect(list).toContain(`href="/panel/webhooks/${endpoint.id}/"`);
    expect(list).toContain('ERP &lt;hooks&gt;');
    expect(list).toContain('<span class="status ok">Enabled</span>');
  });

  it('rotates the secret (shown once, with the transition note), queues a test event and a resend', async () => {
    const [endpoint] = await service.list(accountId);
    const detail = await get(`/panel/webhooks/${endpoint.id}/`);
    expect(detail).toContain('No delivery attempts yet.');
    const confirm = await get(`/panel/webhooks/${endpoint.id}/rotate-secret/`);
    expect(confirm).toContain('effective immediately');
    expect(confirm).toContain('accept both the old and the new secret');
    const rotated = await post(`/panel/webhooks/${endpoint.id}/rotate-secret/`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.text).toContain('accept both the old and the new secret');
    const secret = secretOf(rotated.text);
    expect(secrets).not.toContain(secret);
    secrets.push(secret);

    const test = await post(`/panel/webhooks/${endpoint.id}/test/`, {});
    expect(test.status).toBe(303);
    expect(test.headers.location).toBe(`/panel/webhooks/${endpoint.id}/?notice=test_queued`);
    const [delivery] = await dataSource.query('SELECT event_id, event_type, origin FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id]);
    expect(delivery).toMatchObject({ event_type: 'webhook.test', origin: 'test' });
    expect(await get(test.headers.location)).toContain('A test event was queued.');

    const resend = await post(`/panel/webhooks/${endpoint.id}/resend/`, { event_id: delivery.event_id });
    expect(resend.headers.location).toBe(`/panel/webhooks/${endpoint.id}/?notice=resend_queued`);
    const missing = await post(`/panel/webhooks/${endpoint.id}/resend/`, { event_id: '00000000-0000-7000-8000-000000000000' });
    expect(missing.headers.location).toBe(`/panel/webhooks/${endpoint.id}/?notice=event_not_found`);
    const origins = await dataSource.query('SELECT origin FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at', [endpoint.id]);
    expect(origins.map((o: { origin: string }) => o.origin)).toEqual(['test', 'resend']);
  });

  it('shows the attempt log with status code, error and duration', async () => {
    const [endpoint] = await service.list(accountId);
    const [delivery] = await dataSource.query('SELECT id, event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at LIMIT 1', [endpoint.id]);
    await dataSource.query(
      `INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number, attempted_at, outcome, status_code, error, duration_ms)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, 'webhook.test', 1, now(), 'retry', 503, 'receiver said <503>', 87)`,
      [accountId, endpoint.id, delivery.id, delivery.event_id],
    );
    const detail = await get(`/panel/webhooks/${endpoint.id}/`);
    expect(detail).toContain('<td data-label="Status code">503</td>');
    expect(detail).toContain('receiver said &lt;503&gt;');
    expect(detail).toContain('<td data-label="Duration">87 ms</td>');
    expect(detail).toContain(`<td data-label="Event ID"><code>${delivery.event_id}</code></td>`);
    expect(detail).toContain('Failed, will retry');
    expect(detail).toContain(`name="event_id" value="${delivery.event_id}"`);
  });

  it('warns on every page while an endpoint is disabled, and re-enables it', async () => {
    const [endpoint] = await service.list(accountId);
    const manager = await signIn(api, (await insertPanelUser(dataSource, accountId, 'MANAGER')).email);
    const viewer = await signIn(api, (await insertPanelUser(dataSource, accountId, 'VIEWER')).email);
    expect(await get('/panel/')).not.toContain('class="banner"');
    await service.disable(accountId, endpoint.id, '20 consecutive failed deliveries');

    for (const path of ['/panel/', '/panel/credentials/', '/panel/credentials/new/', '/panel/webhooks/', `/panel/webhooks/${endpoint.id}/`]) {
      const page = await get(path);
      expect({ path, banner: page.includes('One webhook endpoint is disabled and receiving no events.') }).toEqual({ path, banner: true });
    }
    expect(await get('/panel/', 200, manager)).toContain('Review and re-enable it in Settings · Webhooks');
    const viewerHome = await get('/panel/', 200, viewer);
    // Readers are sent to the page to look, without being told to do what they cannot.
    expect(viewerHome).toContain('<a href="/panel/webhooks/">See it in Settings · Webhooks</a>; a company administrator or manager can turn it back on.');
    expect(viewerHome).not.toContain('re-enable it');
    expect(await get('/panel/webhooks/', 200, viewer)).toContain('class="banner"');
    const viewerDetail = await get(`/panel/webhooks/${endpoint.id}/`, 200, viewer);
    expect(viewerDetail).toContain('20 consecutive failed deliveries');
    expect(viewerDetail).toContain('receives no events until a company administrator or manager turns it back on.');
    expect(viewerDetail).not.toContain('Re-enable endpoint');
    expect(await post(`/panel/webhooks/${endpoint.id}/enable/`, {}, viewer)).toHaveProperty('status', 403);
    expect((await service.get(accountId, endpoint.id)).status).toBe('disabled');
    const detail = await get(`/panel/webhooks/${endpoint.id}/`, 200, manager);
    expect(detail).toContain('20 consecutive failed deliveries');
    expect(detail).toContain('<span class="status bad">Disabled</span> since <time');
    expect(detail).toContain('Re-enable the endpoint to send a test event.');
    const test = await post(`/panel/webhooks/${endpoint.id}/test/`, {}, manager);
    expect(test.headers.location).toBe(`/panel/webhooks/${endpoint.id}/?notice=endpoint_disabled`);

    const enabled = await post(`/panel/webhooks/${endpoint.id}/enable/`, {}, manager);
    // A disabled endpoint, once re-enabled, is offered the recovery form (pre-filled with when it was disabled).
    expect(enabled.headers.location).toMatch(new RegExp(`^/panel/webhooks/${endpoint.id}/recover/\\?notice=endpoint_enabled&since=\\d{4}-\\d{2}-\\d{2}T\\d{2}%3A\\d{2}%3A00\\.000Z$`));
    expect((await service.get(accountId, endpoint.id)).status).toBe('enabled');
    for (const path of ['/panel/', '/panel/webhooks/']) expect(await get(path)).not.toContain('class="banner"');
  });

  it('opts an endpoint in to Standard Webhooks when adding it and on its page, keeping the secret; refuses an unknown format, changing nothing', async () => {
    const form = await get('/panel/webhooks/new/');
    expect(form).toContain('<legend>Signature format</legend>');
    expect(form).toMatch(/<input type="radio" id="signature_format-0" name="signature_format" value="service-v1" checked>/);
    expect(form).toContain('value="standard-webhooks"');

    const bad = await post('/panel/webhooks/', { url: 'https://localhost:9/standard', events: 'alarm.created', signature_format: 'svix' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose one of the signature formats listed.');
    expect((await service.list(accountId)).map((e) => e.url)).not.toContain('https://localhost:9/standard');

    const created = await post('/panel/webhooks/', { url: 'https://localhost:9/standard', events: 'alarm.created', signature_format: 'standard-webhooks' });
    expect(created.status).toBe(200);
    expect(created.text).toContain('<dt>Signature format</dt><dd>Standard Webhooks</dd>');
    expect(created.text).toContain('new Webhook(secret).verify(rawBody, headers)');
    const secret = secretOf(created.text);
    secrets.push(secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const endpoint = (await service.list(accountId)).find((e) => e.url === 'https://localhost:9/standard');
    expect(endpoint?.signature_format).toBe('standard-webhooks');
    const id = endpoint?.id as string;
    const secretRow = async () => (await dataSource.query('SELECT secret_ciphertext, signature_format FROM webhook_endpoints WHERE id = $1', [id]))[0];
    const before = await secretRow();

    const detail = await get(`/panel/webhooks/${id}/`);
    expect(detail).toContain('<dt>Signature format</dt><dd>Standard Webhooks</dd>');
    expect(detail).toMatch(/name="signature_format" value="standard-webhooks" checked>/);
    const back = await post(`/panel/webhooks/${id}/signature-format/`, { signature_format: 'service-v1' });
    expect(back.headers.location).toBe(`/panel/webhooks/${id}/?notice=signature_format_saved`);
    expect(await get(back.headers.location)).toContain('The signature format was saved');
    expect(await secretRow()).toEqual({ ...before, signature_format: 'service-v1' });
    const unknown = await post(`/panel/webhooks/${id}/signature-format/`, { signature_format: 'v2' });
    expect(unknown.headers.location).toBe(`/panel/webhooks/${id}/?notice=signature_format_invalid`);
    expect(await secretRow()).toEqual({ ...before, signature_format: 'service-v1' });

    // A rotation of an opted-in endpoint tells how long both secrets sign.
    await post(`/panel/webhooks/${id}/signature-format/`, { signature_format: 'standard-webhooks' });
    expect(await get(`/panel/webhooks/${id}/rotate-secret/`)).toContain('carries a signature with each secret for 24 hours');
    const rotated = await post(`/panel/webhooks/${id}/rotate-secret/`, {});
    expect(rotated.text).toContain('carries signatures with both the old and the new secret');
    secrets.push(secretOf(rotated.text));
    expect(await get(`/panel/webhooks/${id}/`)).toContain('(the previous secret also signs until');
    await service.remove(accountId, id);
  });

  it('lets operators and viewers read Settings · Webhooks (list, endpoint page) without any action, and refuses every action (403, nothing changed)', async () => {
    const [endpoint] = await service.list(accountId);
    const [delivery] = await dataSource.query('SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at LIMIT 1', [endpoint.id]);
    await service.disable(accountId, endpoint.id, 'receiver down for the read-only test');
    const state = () =>
      Promise.all([
        dataSource.query('SELECT id, url, events, description, secret_ciphertext, secret_rotated_at, signature_format, enabled, disabled_at, updated_at FROM webhook_endpoints WHERE account_id = $1 ORDER BY id', [accountId]),
        dataSource.query('SELECT id, status FROM webhook_deliveries WHERE account_id = $1 ORDER BY id', [accountId]),
      ]);
    const before = await state();
    const since = new Date(Date.now() - 3_600_000).toISOString();
    for (const role of ['OPERATOR', 'VIEWER'] as const) {
      const reader = await signIn(api, (await insertPanelUser(dataSource, accountId, role)).email);
      const home = await get('/panel/', 200, reader);
      expect(home).toContain('<li><a href="/panel/webhooks/">Settings · Webhooks</a></li>');

      const list = mainOf(await get('/panel/webhooks/', 200, reader));
      expect(list).toContain(`href="/panel/webhooks/${endpoint.id}/"`);
      expect(list).toContain('class="success-rate');
      expect(list).toContain('Company administrators and managers manage them');
      expect({ role, forms: list.includes('<form'), add: list.includes('/panel/webhooks/new/') }).toEqual({ role, forms: false, add: false });

      const detail = mainOf(await get(`/panel/webhooks/${endpoint.id}/`, 200, reader));
      expect(detail).toContain('id="health"');
      expect(detail).toContain('id="attempts"');
      expect(detail).toContain(`<td data-label="Event ID"><code>${delivery.event_id}</code></td>`);
      expect(detail).toContain('Company administrators and managers manage them');
      const actions = ['<form', '<button', 'Send a test event', 'Resend', 'Re-enable endpoint', 'Rotate', 'rotate-secret/', 'Recover failed deliveries', 'data-label="Action"'];
      expect({ role, shown: actions.filter((a) => detail.includes(a)) }).toEqual({ role, shown: [] });

      for (const page of ['/panel/webhooks/new/', `/panel/webhooks/${endpoint.id}/rotate-secret/`, `/panel/webhooks/${endpoint.id}/recover/`]) {
        const res = await reader.agent.get(page);
        expect({ role, page, status: res.status }).toEqual({ role, page, status: 403 });
      }
      const posts: Array<[string, Record<string, string>]> = [
        ['/panel/webhooks/', { url: 'https://localhost:9/by-a-reader', events: 'alarm.created' }],
        [`/panel/webhooks/${endpoint.id}/test/`, {}],
        [`/panel/webhooks/${endpoint.id}/resend/`, { event_id: delivery.event_id }],
        [`/panel/webhooks/${endpoint.id}/enable/`, {}],
        [`/panel/webhooks/${endpoint.id}/rotate-secret/`, {}],
        [`/panel/webhooks/${endpoint.id}/signature-format/`, { signature_format: 'standard-webhooks' }],
        [`/panel/webhooks/${endpoint.id}/recover/`, { since }],
      ];
      for (const [path, fields] of posts) {
        const res = await post(path, fields, reader);
        expect({ role, path, status: res.status }).toEqual({ role, path, status: 403 });
        expect(res.text).toContain('You cannot use this page');
      }
    }
    expect(await state()).toEqual(before);
    await service.enable(accountId, endpoint.id);
  });

  it('keeps other companies’ endpoints out of reach (404)', async () => {
    const foreign = await service.create(otherAccountId, { url: 'https://localhost:9/foreign', events: ['alarm.created'] });
    secrets.push(foreign.signing_secret);
    expect(await get('/panel/webhooks/')).not.toContain(foreign.id);
    await get(`/panel/webhooks/${foreign.id}/`, 404);
    await get(`/panel/webhooks/${foreign.id}/rotate-secret/`, 404);
    await get('/panel/webhooks/not-a-uuid/', 404);
    for (const action of ['test', 'enable', 'rotate-secret', 'resend', 'signature-format']) {
      const res = await post(`/panel/webhooks/${foreign.id}/${action}/`, { event_id: '00000000-0000-7000-8000-000000000000' });
      expect({ action, status: res.status }).toEqual({ action, status: 404 });
    }
    expect((await service.get(otherAccountId, foreign.id)).secret_rotated_at).toBeNull();
  });

  it('creates nothing twice when a creation form is submitted again (reloading the secret page, a double click)', async () => {
    const credentialForm = await get('/panel/credentials/new/');
    const submission = submissionOf(credentialForm);
    expect(submissionOf(await get('/panel/credentials/new/'))).not.toBe(submission); // one id per rendered form
    // a form re-rendered with errors keeps its id
    expect(submissionOf((await post('/panel/credentials/', { submission, name: 'Reloaded' })).text)).toBe(submission);

    const fields = { submission, name: 'Reloaded', scopes: ['devices:read'] };
    const [first, second] = await Promise.all([post('/panel/credentials/', fields), post('/panel/credentials/', fields)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 303]);
    const shown = first.status === 200 ? first : second;
    const again = first.status === 200 ? second : first;
    secrets.push(secretOf(shown.text));
    expect(again.headers.location).toBe('/panel/credentials/?notice=credential_already_created');
    const third = await post('/panel/credentials/', fields).expect(303);
    expect(third.text).not.toContain(secrets[secrets.length - 1]);
    const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM api_credentials WHERE owner_account_id = $1 AND name = 'Reloaded'`, [accountId]);
    expect(n).toBe(1);
    expect(await get('/panel/credentials/?notice=credential_already_created')).toContain('its secret was shown only once');

    // an id that is someone else's credential changes nothing there
    const foreign = await createCredential(dataSource, [otherAccountId]);
    const [before] = await dataSource.query(`SELECT secret_hash, name, owner_account_id FROM api_credentials WHERE id = $1`, [foreign.id]);
    // (answered as a fresh form: "already created" would confirm that the id exists elsewhere)
    secrets.push(secretOf((await post('/panel/credentials/', { submission: foreign.id, name: 'Hijack', scopes: ['devices:read'] }).expect(200)).text));
    expect((await dataSource.query(`SELECT secret_hash, name, owner_account_id FROM api_credentials WHERE id = $1`, [foreign.id]))[0]).toEqual(before);

    const endpointForm = await get('/panel/webhooks/new/');
    const endpointFields = { submission: submissionOf(endpointForm), url: 'https://localhost:9/reloaded', events: 'alarm.created' };
    const created = await post('/panel/webhooks/', endpointFields).expect(200);
    secrets.push(secretOf(created.text));
    const resubmitted = await post('/panel/webhooks/', endpointFields).expect(303);
    expect(resubmitted.headers.location).toBe('/panel/webhooks/?notice=endpoint_already_created');
    expect((await service.list(accountId)).filter((e) => e.url === 'https://localhost:9/reloaded')).toHaveLength(1);
  });

  it('never shows a secret again after its one-time display', async () => {
    for (const path of ['/panel/', '/panel/credentials/', '/panel/webhooks/']) await get(path);
    for (const endpoint of await service.list(accountId)) {
      await get(`/panel/webhooks/${endpoint.id}/`);
      await get(`/panel/webhooks/${endpoint.id}/rotate-secret/`);
    }
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    expect(pages.length).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(pages.filter((page) => page.includes(secret))).toEqual([]);
    }
  });
});
