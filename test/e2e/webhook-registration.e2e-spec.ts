import type { DataSource } from 'typeorm';
import { WebhookEndpointLimitError, WebhookEndpointsService } from '@app/webhooks';
import { startApi, type TestApi } from '../support/api';
import { runCaptured } from '../support/cli';
import { TestDnsServer } from '../support/dns-server';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { insertPanelUser, type PanelBrowser, signIn } from '../support/panel';
import { EMBEDDED_PRIVATE_IPV4, sampleAddresses, SPECIAL_PURPOSE_IPV4, SPECIAL_PURPOSE_IPV6 } from '../support/special-purpose-addresses';
import type { AccountId } from '@app/vocabulary';

/**
 * What registering a webhook address tells a stranger (panel and CLI, with private targets
 * refused): "not allowed" or "cannot be reached", never the address a name resolved to nor
 * whether the name exists; and how many endpoints one account may register.
 */

const PRIVATE_HOST = 'intranet.probe.test';
const PRIVATE_ADDRESS = '10.20.30.40';
const SILENT_HOST = 'silent.probe.test';
const MAX_ENDPOINTS = 3;

/** Every special-purpose range (IANA registries and the extra ones) and every private IPv4 embedding, by a literal and by a name. */
const SPECIAL_TARGETS = [
  ...[...SPECIAL_PURPOSE_IPV4, ...SPECIAL_PURPOSE_IPV6].map((range) => {
    const samples = sampleAddresses(range.cidr);
    return { label: `${range.cidr} (${range.name})`, literal: samples[0], resolved: samples[samples.length - 1] };
  }),
  ...EMBEDDED_PRIVATE_IPV4.map(([form, address]) => ({ label: `${form} ${address}`, literal: address, resolved: address })),
].map((target, n) => ({ ...target, host: `special-${n}.probe.test` }));
const literalUrl = (address: string): string => (address.includes(':') ? `https://[${address}]/hook` : `https://${address}/hook`);

describe('webhook registration: refusals say little, and an account has a bounded number of endpoints', () => {
  let dns: TestDnsServer;
  let api: TestApi;
  let dataSource: DataSource;
  let accountId: AccountId;
  let admin: PanelBrowser;
  const saved: Record<string, string | undefined> = {};

  const settings = (): Record<string, string> => ({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
    WEBHOOK_DNS_SERVERS: dns.address,
    WEBHOOK_DNS_TIMEOUT_MS: '500',
    WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: String(MAX_ENDPOINTS),
    // The table below makes a few hundred refused registrations.
    PANEL_POSTS_PER_MINUTE: '100000',
    WEBHOOK_ENDPOINT_CREATES_PER_HOUR: '100000',
  });

  beforeAll(async () => {
    dns = await TestDnsServer.start({
      answers: {
        [PRIVATE_HOST]: [PRIVATE_ADDRESS],
        'public.probe.test': ['93.184.216.34'],
        'ipv4-compatible.probe.test': ['93.184.216.34', '::7f00:1'],
        ...Object.fromEntries(SPECIAL_TARGETS.map((target) => [target.host, [target.resolved]])),
      },
      silent: [SILENT_HOST],
    });
    api = await startApi(settings());
    dataSource = dataSourceOf(api.app);
    accountId = await createAccount(dataSource, 'Registration Co');
    admin = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
    // The CLI reads its settings from the environment, as in production.
    for (const [name, value] of Object.entries(settings())) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await api?.close();
    await dns?.close();
  });

  const register = (url: string) =>
    admin.agent.post('/panel/webhooks/').type('form').send({ _csrf: admin.csrf, url, events: 'alarm.created' });

  /** Nothing in a refusal may name the address, the resolver or why the name failed. */
  const revealsNothing = (text: string): void => {
    expect(text).not.toContain(PRIVATE_ADDRESS);
    // Hidden form fields carry random tokens: words could appear in them by chance.
    const visible = text.replace(/<input type="hidden"[^>]*>/g, '');
    expect(/resolves? to|not resolve|resolution|ENOTFOUND|ETIMEOUT|NXDOMAIN|\bDNS\b|private|loopback|does not exist|timed out/i.exec(visible)?.[0]).toBeUndefined();
  };

  it.each([
    ['a name that resolves to a private address', `https://${PRIVATE_HOST}/hook`, 'This address is not allowed.'],
    ['a private address literal', `https://${PRIVATE_ADDRESS}/hook`, 'This address is not allowed.'],
    ['a name that does not exist', 'https://nowhere.probe.test/hook', 'This address cannot be reached.'],
    ['a name whose DNS never answers', `https://${SILENT_HOST}/hook`, 'This address cannot be reached.'],
  ])('panel: refuses %s with only "%s"', async (_label, url, message) => {
    const started = Date.now();
    const res = await register(url);
    expect(res.status).toBe(400);
    expect(res.text).toContain(message);
    const form = res.text.slice(res.text.indexOf('<main'));
    revealsNothing(form.replace(url, '').replace(`value="${url}"`, ''));
    expect(Date.now() - started).toBeLessThan(5_000); // the DNS deadline, not the thread pool's luck
    expect(await dataSource.query('SELECT 1 FROM webhook_endpoints WHERE account_id = $1', [accountId])).toEqual([]);
  });

  it.each(SPECIAL_TARGETS.map((target) => [target.label, target] as const))(
    'panel: refuses a special-purpose address, as a literal and as what a name resolves to: %s',
    async (_label, target) => {
      const urls = [literalUrl(target.literal), `https://${target.host}/hook`];
      const answers = [];
      for (const url of urls) {
        const res = await register(url);
        answers.push({ url, status: res.status, refused: res.text.includes('This address is not allowed.') });
      }
      const saved = await dataSource.query('SELECT url FROM webhook_endpoints WHERE account_id = $1', [accountId]);
      await dataSource.query('DELETE FROM webhook_endpoints WHERE account_id = $1', [accountId]); // one wrong acceptance must not fail the rest
      expect(answers).toEqual(urls.map((url) => ({ url, status: 400, refused: true })));
      expect(saved).toEqual([]);
    },
  );

  it('panel: refuses https://[::7f00:1]/ (IPv4-compatible loopback) and a name with a public and an IPv4-compatible address', async () => {
    for (const url of ['https://[::7f00:1]/', 'https://[::127.0.0.1]/', 'https://ipv4-compatible.probe.test/hook']) {
      const res = await register(url);
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect(res.text).toContain('This address is not allowed.');
    }
    const accepted = await register('https://public.probe.test/hook');
    expect(accepted.status).toBe(200);
    await dataSource.query('DELETE FROM webhook_endpoints WHERE account_id = $1', [accountId]);
  });

  it('CLI: the same two answers, nothing more', async () => {
    const privateName = await runCaptured('webhooks:create', '--account', accountId, '--url', `https://${PRIVATE_HOST}/hook`, '--events', 'alarm.created');
    expect(privateName.code).toBe(2);
    expect(privateName.stderr).toContain('url: this address is not allowed');
    revealsNothing(privateName.stderr + privateName.stdout);
    const missing = await runCaptured('webhooks:create', '--account', accountId, '--url', 'https://nowhere.probe.test/hook', '--events', 'alarm.created');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('url: this address cannot be reached');
    revealsNothing(missing.stderr + missing.stdout);
  });

  it(`refuses endpoint number ${MAX_ENDPOINTS + 1} of an account (panel 400, CLI exit 2, service too_many_webhook_endpoints), other accounts unaffected`, async () => {
    const account = await createAccount(dataSource, 'Full Co');
    const user = await signIn(api, (await insertPanelUser(dataSource, account, 'COMPANY_ADMIN')).email);
    for (let n = 0; n < MAX_ENDPOINTS; n++) {
      const res = await user.agent.post('/panel/webhooks/').type('form').send({ _csrf: user.csrf, url: `https://public.probe.test/${n}`, events: 'alarm.created' });
      expect(res.status).toBe(200);
    }
    const refused = await user.agent.post('/panel/webhooks/').type('form').send({ _csrf: user.csrf, url: 'https://public.probe.test/extra', events: 'alarm.created' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(`This company already has ${MAX_ENDPOINTS} webhook endpoints, the most it can register.`);

    const cli = await runCaptured('webhooks:create', '--account', account, '--url', 'https://public.probe.test/cli', '--events', 'alarm.created');
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`at most ${MAX_ENDPOINTS} webhook endpoints`);

    // Concurrent registrations cannot pass the cap together.
    const service = new WebhookEndpointsService(dataSource, { secretsKey: api.config.secretsKey, allowPrivateTargets: true, maxEndpointsPerAccount: MAX_ENDPOINTS });
    const racing = await createAccount(dataSource, 'Racing Co');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, n) => service.create(racing, { url: `https://127.0.0.1:9/${n}`, events: ['alarm.created'] })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX_ENDPOINTS);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WebhookEndpointLimitError);
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'too_many_webhook_endpoints' });
    }
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1', [racing]);
    expect(n).toBe(MAX_ENDPOINTS);

    // Deleting one makes room again; another account was never limited by this one.
    const [first] = await service.list(racing);
    await service.remove(racing, first.id);
    await expect(service.create(racing, { url: 'https://127.0.0.1:9/again', events: ['alarm.created'] })).resolves.toMatchObject({ status: 'enabled' });
    await expect(service.create(accountId, { url: 'https://127.0.0.1:9/other', events: ['alarm.created'] })).resolves.toMatchObject({ status: 'enabled' });
  });
});
