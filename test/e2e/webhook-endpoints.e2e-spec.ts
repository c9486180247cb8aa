import { Command, CommanderError } from 'commander';
import type { DataSource } from 'typeorm';
import { type AppConfig, loadConfig } from '@app/config';
import { createDataSource } from '@app/database';
import { writeOutboxEvent } from '@app/events';
import {
  decryptSecret,
  WebhookEndpointsService,
  WebhookInputError,
  WebhookNotFoundError,
  WebhookStateError,
  type CreatedWebhookEndpoint,
} from '@app/webhooks';
import { CliError, type CliContext } from '../../apps/cli/src/cli-context';
import {
  registerWebhookCommands,
  webhooksAttempts,
  webhooksCreate,
  webhooksDisable,
  webhooksEnable,
  webhooksList,
  webhooksResend,
  webhooksRotateSecret,
  webhooksTest,
  webhooksUpdate,
} from '../../apps/cli/src/commands/webhooks.commands';
import { createAccount } from '../support/fixtures';
import { toAccountId, type AccountId } from '@app/vocabulary';

const FAKE_DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.example': ['93.184.216.34', '10.1.2.3'],
  'loopback.example': ['127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
};
const fakeResolver = async (host: string): Promise<string[]> => {
  const addresses = FAKE_DNS[host];
  if (!addresses) throw new Error(`ENOTFOUND ${host}`);
  return addresses;
};

describe('webhook endpoint management (service and CLI)', () => {
  let dataSource: DataSource;
  let config: AppConfig;
  let permissive: WebhookEndpointsService;
  let strict: WebhookEndpointsService;
  let accountId: AccountId;
  let otherAccountId: AccountId;

  beforeAll(async () => {
    config = loadConfig();
    dataSource = createDataSource(config.databaseUrl, 4);
    await dataSource.initialize();
    permissive = new WebhookEndpointsService(dataSource, { secretsKey: config.secretsKey, allowPrivateTargets: true });
    strict = new WebhookEndpointsService(dataSource, { secretsKey: config.secretsKey, allowPrivateTargets: false, resolver: fakeResolver });
    accountId = await createAccount(dataSource, 'Hooks Co');
    otherAccountId = await createAccount(dataSource, 'Other Co');
  });
  afterAll(() => dataSource.destroy());

  const create = (events = ['alarm.created'], url = 'https://hooks.example.com/in'): Promise<CreatedWebhookEndpoint> =>
    strict.create(accountId, { url, events });

  describe('create', () => {
    it('returns the whsec_ signing secret once and stores it only encrypted (AES-256-GCM under SECRETS_KEY)', async () => {
      const created = await create(['shipment.completed', 'alarm.created', 'alarm.created']);
      expect(created.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created).toMatchObject({ account_id: accountId, url: 'https://hooks.example.com/in', events: ['alarm.created', 'shipment.completed'], status: 'enabled', consecutive_failures: 0 });

      const [row] = await dataSource.query('SELECT * FROM webhook_endpoints WHERE id = $1', [created.id]);
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(created.signing_secret);
      expect(stored).not.toContain(created.signing_secret.slice('whsec_'.length));
      expect(row.secret_ciphertext).toMatch(/^v1\./);
      expect(decryptSecret(config.secretsKey, row.secret_ciphertext, created.id)).toBe(created.signing_secret);
      // bound to its endpoint: the ciphertext does not open under another id
      expect(() => decryptSecret(config.secretsKey, row.secret_ciphertext, otherAccountId)).toThrow();

      const listed = await strict.list(accountId);
      expect(listed.find((e) => e.id === created.id)).not.toHaveProperty('signing_secret');
      expect(JSON.stringify(await strict.get(accountId, created.id))).not.toContain(created.signing_secret);
    });

    it.each([
      ['http://hooks.example.com/in', 'only https://'],
      ['ftp://hooks.example.com/in', 'only https://'],
      ['not a url', 'not a valid URL'],
      ['', 'https:// address is required'],
      ['https://user:password@hooks.example.com/in', 'credentials'],
      ['https://hooks.example.com/in#frag', 'fragment'],
      ['https://nowhere.example/in', 'this address cannot be reached'],
    ])('refuses %j (%s)', async (url, message) => {
      const error = await strict.create(accountId, { url, events: ['alarm.created'] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebhookInputError);
      expect(error).toMatchObject({ field: 'url', code: 'validation_failed' });
      expect((error as Error).message).toContain(message);
    });

    it('refuses http:// even when private targets are allowed', async () => {
      await expect(permissive.create(accountId, { url: 'http://127.0.0.1:8080/in', events: ['alarm.created'] })).rejects.toMatchObject({ field: 'url' });
    });

    it('checks the subscription and the account', async () => {
      await expect(strict.create(accountId, { url: 'https://hooks.example.com/', events: [] })).rejects.toMatchObject({ field: 'events' });
      await expect(strict.create(accountId, { url: 'https://hooks.example.com/', events: ['alarm.created', 'device.exploded'] })).rejects.toThrow(
        /unknown event types: device\.exploded/,
      );
      await expect(strict.create(accountId, { url: 'https://hooks.example.com/', events: ['webhook.test'] })).rejects.toMatchObject({ field: 'events' });
      await expect(strict.create(toAccountId('00000000-0000-7000-8000-0000000000ff'), { url: 'https://hooks.example.com/', events: ['alarm.created'] })).rejects.toMatchObject({
        field: 'account_id',
      });
      await expect(strict.create(toAccountId('nope'), { url: 'https://hooks.example.com/', events: ['alarm.created'] })).rejects.toMatchObject({ field: 'account_id' });
    });
  });

  describe('SSRF guard at registration (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
    it.each([
      'https://10.0.0.1/hook',
      'https://10.255.255.255:8443/hook',
      'https://127.0.0.1/hook',
      'https://127.1.2.3/hook',
      'https://2130706433/hook', // 127.0.0.1 in decimal
      'https://0.0.0.0/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://169.254.1.1/hook',
      'https://100.64.0.1/hook',
      'https://172.16.5.4/hook',
      'https://192.168.1.10/hook',
      'https://224.0.0.1/hook',
      'https://[::1]/hook',
      'https://[::]/hook',
      'https://[fd00:ec2::254]/latest/meta-data/',
      'https://[fc00::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://[64:ff9b::a9fe:a9fe]/hook', // NAT64 of 169.254.169.254
      'https://loopback.example/hook',
      'https://metadata.example/hook',
      'https://rebind.example/hook', // one public and one private answer
    ])('refuses %s', async (url) => {
      await expect(strict.create(accountId, { url, events: ['alarm.created'] })).rejects.toMatchObject({ field: 'url' });
    });

    it('refuses a real DNS name that resolves to loopback (localhost, default resolver)', async () => {
      const system = new WebhookEndpointsService(dataSource, { secretsKey: config.secretsKey, allowPrivateTargets: false });
      await expect(system.create(accountId, { url: 'https://localhost:8443/hook', events: ['alarm.created'] })).rejects.toThrow('url: this address is not allowed');
    });

    it.each(['https://93.184.216.34/hook', 'https://[2606:2800:220:1:248:1893:25c8:1946]/hook', 'https://hooks.example.com:8443/in?x=1'])(
      'accepts the public target %s',
      async (url) => {
        await expect(strict.create(accountId, { url, events: ['alarm.created'] })).resolves.toMatchObject({ status: 'enabled' });
      },
    );

    it('accepts private targets when they are allowed (tests, on-premise)', async () => {
      await expect(permissive.create(accountId, { url: 'https://127.0.0.1:9/hook', events: ['alarm.created'] })).resolves.toMatchObject({ status: 'enabled' });
    });
  });

  describe('lifecycle', () => {
    it('rotates the secret: new secret once, new ciphertext, effective at once', async () => {
      const created = await create();
      const rotated = await strict.rotateSecret(accountId, created.id);
      expect(rotated.signing_secret).toMatch(/^whsec_/);
      expect(rotated.signing_secret).not.toBe(created.signing_secret);
      expect(rotated.endpoint.secret_rotated_at).not.toBeNull();
      const [row] = await dataSource.query('SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1', [created.id]);
      expect(decryptSecret(config.secretsKey, row.secret_ciphertext, created.id)).toBe(rotated.signing_secret);
    });

    it('disables (cancelling pending deliveries, keeping the first reason) and re-enables (resetting the failure count)', async () => {
      const created = await create();
      const test = await strict.sendTestEvent(accountId, created.id);
      await dataSource.query('UPDATE webhook_endpoints SET consecutive_failures = 7 WHERE id = $1', [created.id]);

      const disabled = await strict.disable(accountId, created.id, 'receiver is being moved');
      expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'receiver is being moved' });
      expect(disabled.disabled_at).not.toBeNull();
      const [delivery] = await dataSource.query('SELECT status, next_attempt_at FROM webhook_deliveries WHERE id = $1', [test.webhook_delivery_id]);
      expect(delivery).toEqual({ status: 'cancelled', next_attempt_at: null });
      expect((await strict.disable(accountId, created.id, 'again')).disabled_reason).toBe('receiver is being moved');

      await expect(strict.sendTestEvent(accountId, created.id)).rejects.toMatchObject({ code: 'endpoint_disabled' });

      const enabled = await strict.enable(accountId, created.id);
      expect(enabled).toMatchObject({ status: 'enabled', consecutive_failures: 0, disabled_at: null, disabled_reason: null });
      const [after] = await dataSource.query('SELECT status FROM webhook_deliveries WHERE id = $1', [test.webhook_delivery_id]);
      expect(after.status).toBe('cancelled');
    });

    it('queues a webhook.test event for that endpoint only, due now, whatever the subscription', async () => {
      const created = await create(['shipment.created']);
      const queued = await strict.sendTestEvent(accountId, created.id);
      expect(queued).toMatchObject({ endpoint_id: created.id, event_type: 'webhook.test', origin: 'test' });
      const [row] = await dataSource.query('SELECT * FROM webhook_deliveries WHERE id = $1', [queued.webhook_delivery_id]);
      expect(row).toMatchObject({ status: 'pending', attempts: 0, endpoint_id: created.id, event_id: queued.event_id, origin: 'test' });
      expect(JSON.parse(row.body.toString('utf8'))).toEqual({
        id: queued.event_id,
        type: 'webhook.test',
        created_at: expect.any(String),
        data: { endpoint_id: created.id, message: expect.any(String) },
      });
    });

    it('resends an event by hand: a new delivery with the same event id and bytes, only if subscribed and of the account', async () => {
      const created = await create(['alarm.created']);
      const envelope = await dataSource.transaction((manager) =>
        writeOutboxEvent(manager, { accountId, type: 'alarm.created', aggregateType: 'alarm', aggregateId: 'r-1', data: { message: 'resend me' } }),
      );
      const first = await strict.resend(accountId, created.id, envelope.id);
      const second = await strict.resend(accountId, created.id, envelope.id);
      expect(first.webhook_delivery_id).not.toBe(second.webhook_delivery_id);
      const rows = await dataSource.query('SELECT body, origin, event_id FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id', [
        [first.webhook_delivery_id, second.webhook_delivery_id],
      ]);
      expect(rows.map((r: { origin: string }) => r.origin)).toEqual(['resend', 'resend']);
      expect(rows[0].body.equals(rows[1].body)).toBe(true);
      expect(JSON.parse(rows[0].body.toString('utf8'))).toEqual(envelope);

      const shipment = await dataSource.transaction((manager) =>
        writeOutboxEvent(manager, { accountId, type: 'shipment.created', aggregateType: 'shipment', aggregateId: '7', data: {} }),
      );
      await expect(strict.resend(accountId, created.id, shipment.id)).rejects.toMatchObject({ code: 'event_not_subscribed' });
      const foreign = await dataSource.transaction((manager) =>
        writeOutboxEvent(manager, { accountId: otherAccountId, type: 'alarm.created', aggregateType: 'alarm', aggregateId: 'f', data: {} }),
      );
      await expect(strict.resend(accountId, created.id, foreign.id)).rejects.toBeInstanceOf(WebhookNotFoundError);
      await expect(strict.resend(accountId, created.id, 'nope')).rejects.toBeInstanceOf(WebhookNotFoundError);
    });

    it('updates the address and subscription with the same checks, and deletes', async () => {
      const created = await create();
      const updated = await strict.update(accountId, created.id, { url: 'https://hooks.example.com/v2', events: ['alarm.resolved'] });
      expect(updated).toMatchObject({ url: 'https://hooks.example.com/v2', events: ['alarm.resolved'] });
      await expect(strict.update(accountId, created.id, { url: 'https://10.0.0.1/' })).rejects.toMatchObject({ field: 'url' });
      await strict.remove(accountId, created.id);
      await expect(strict.get(accountId, created.id)).rejects.toBeInstanceOf(WebhookNotFoundError);
    });

    it("treats another tenant's endpoint exactly like a missing one", async () => {
      const created = await create();
      const calls: Array<() => Promise<unknown>> = [
        () => strict.get(otherAccountId, created.id),
        () => strict.rotateSecret(otherAccountId, created.id),
        () => strict.enable(otherAccountId, created.id),
        () => strict.disable(otherAccountId, created.id),
        () => strict.sendTestEvent(otherAccountId, created.id),
        () => strict.listAttempts(otherAccountId, created.id),
        () => strict.health(otherAccountId, created.id),
        () => strict.update(otherAccountId, created.id, { events: ['alarm.created'] }),
        () => strict.remove(otherAccountId, created.id),
        () => strict.get(accountId, 'not-a-uuid'),
        () => strict.get(toAccountId('not-a-uuid'), created.id),
      ];
      for (const call of calls) await expect(call()).rejects.toBeInstanceOf(WebhookNotFoundError);
      expect(await strict.list(otherAccountId)).toEqual([]);
      expect((await strict.successRates(otherAccountId)).has(created.id)).toBe(false);
      expect((await strict.get(accountId, created.id)).status).toBe('enabled');
    });
  });

  describe('CLI commands', () => {
    let context: CliContext;
    beforeAll(() => {
      context = { config: { ...config, webhookAllowPrivateTargets: true }, dataSource };
    });

    it('create prints the secret once; list and attempts never print it', async () => {
      const created = await webhooksCreate(context, { account: accountId, url: 'https://127.0.0.1:9/cli', events: 'alarm.created, shipment.created' });
      const endpoint = created.json as CreatedWebhookEndpoint;
      expect(created.human).toContain(endpoint.signing_secret);
      expect(endpoint.events).toEqual(['alarm.created', 'shipment.created']);

      const rotated = await webhooksRotateSecret(context, endpoint.id);
      const secret = (rotated.json as { signing_secret: string }).signing_secret;
      expect(rotated.human).toContain(secret);

      const [row] = await dataSource.query('SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
      for (const output of [await webhooksList(context, { account: accountId }), await webhooksAttempts(context, endpoint.id)]) {
        for (const printed of [output.human, JSON.stringify(output.json)]) {
          expect(printed).not.toContain(endpoint.signing_secret);
          expect(printed).not.toContain(secret);
          expect(printed).not.toContain(row.secret_ciphertext);
        }
      }
      const listed = await webhooksList(context, { account: accountId });
      expect(listed.human).toContain(endpoint.id);
      expect((listed.json as Array<{ id: string }>).map((e) => e.id)).toContain(endpoint.id);
    });

    it('create --signature-format standard-webhooks, update --signature-format back and forth (secret kept), refusals of an unknown format', async () => {
      const created = await webhooksCreate(context, { account: accountId, url: 'https://127.0.0.1:9/cli-standard', events: 'alarm.created', signatureFormat: 'standard-webhooks' });
      const endpoint = created.json as CreatedWebhookEndpoint;
      expect(endpoint.signature_format).toBe('standard-webhooks');
      expect(created.human).toContain('signature:      standard-webhooks');
      expect((await webhooksList(context, { account: accountId })).human).toContain(`${endpoint.url}  [standard-webhooks]`);
      const secretOf = async () => (await dataSource.query('SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1', [endpoint.id]))[0].secret_ciphertext;
      const stored = await secretOf();

      const back = await webhooksUpdate(context, endpoint.id, { signatureFormat: 'service-v1' });
      expect(back.json).toMatchObject({ signature_format: 'service-v1', url: endpoint.url, events: ['alarm.created'] });
      expect(back.human).toContain('the signing secret is unchanged');
      expect(await secretOf()).toBe(stored);
      await webhooksUpdate(context, endpoint.id, { signatureFormat: 'standard-webhooks' });
      const rotated = await webhooksRotateSecret(context, endpoint.id);
      expect(rotated.human).toMatch(/Standard Webhooks: webhook-signature carries a signature with each secret until \d{4}-/);

      await expect(webhooksUpdate(context, endpoint.id, { signatureFormat: 'svix' })).rejects.toThrow('signature_format: one of service-v1, standard-webhooks');
      await expect(webhooksCreate(context, { account: accountId, url: 'https://127.0.0.1:9/cli-bad', events: 'alarm.created', signatureFormat: 'v2' })).rejects.toBeInstanceOf(CliError);
      expect((await strict.get(accountId, endpoint.id)).signature_format).toBe('standard-webhooks');
      expect((await strict.list(accountId)).map((e) => e.url)).not.toContain('https://127.0.0.1:9/cli-bad');
    });

    it('disable, enable, test and resend', async () => {
      const endpoint = (await webhooksCreate(context, { account: accountId, url: 'https://127.0.0.1:9/cli2', events: 'alarm.created' })).json as CreatedWebhookEndpoint;
      expect(((await webhooksDisable(context, endpoint.id, { reason: 'maintenance' })).json as { status: string }).status).toBe('disabled');
      await expect(webhooksTest(context, endpoint.id)).rejects.toThrow(CliError);
      expect(((await webhooksEnable(context, endpoint.id)).json as { status: string }).status).toBe('enabled');
      const test = (await webhooksTest(context, endpoint.id)).json as { event_id: string; event_type: string };
      expect(test.event_type).toBe('webhook.test');
      const resent = (await webhooksResend(context, { endpoint: endpoint.id, event: test.event_id })).json as { event_id: string; origin: string };
      expect(resent).toMatchObject({ event_id: test.event_id, origin: 'resend' });
      expect((await webhooksAttempts(context, endpoint.id)).human).toBe('No delivery attempts yet.');
    });

    it('turns bad arguments and refusals into CliError (exit 2)', async () => {
      const cases: Array<() => Promise<unknown>> = [
        () => webhooksCreate(context, { account: 'nope', url: 'https://x.example/', events: 'alarm.created' }),
        () => webhooksCreate(context, { account: accountId, url: 'http://x.example/', events: 'alarm.created' }),
        () => webhooksCreate(context, { account: accountId, url: 'https://x.example/', events: '' }),
        () => webhooksCreate(context, { account: accountId, url: 'https://x.example/', events: 'alarm.exploded' }),
        () => webhooksRotateSecret(context, 'not-a-uuid'),
        () => webhooksEnable(context, '00000000-0000-7000-8000-000000000001'),
        () => webhooksResend(context, { endpoint: '00000000-0000-7000-8000-000000000001' }),
        () => webhooksList(context, {}),
      ];
      for (const call of cases) await expect(call()).rejects.toBeInstanceOf(CliError);
    });

    it('registers every command; commander refuses a missing option and a malformed id before connecting', async () => {
      const program = new Command('coldchain').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
      registerWebhookCommands(program);
      expect(program.commands.map((c) => c.name()).sort()).toEqual(
        ['webhooks:attempts', 'webhooks:create', 'webhooks:disable', 'webhooks:enable', 'webhooks:list', 'webhooks:recover', 'webhooks:resend', 'webhooks:rotate-secret', 'webhooks:test', 'webhooks:update'],
      );
      await expect(program.parseAsync(['webhooks:create', '--account', accountId, '--url', 'https://x.example/'], { from: 'user' })).rejects.toBeInstanceOf(
        CommanderError,
      );
      await expect(program.parseAsync(['webhooks:enable', 'bogus', '--json'], { from: 'user' })).rejects.toBeInstanceOf(CliError);
      await expect(program.parseAsync(['webhooks:list', '--account', 'bogus'], { from: 'user' })).rejects.toThrow('--account: expected a UUID');
    });
  });

  it('maps refusals to stable codes the web panel can show', () => {
    expect(new WebhookInputError('url', 'x').code).toBe('validation_failed');
    expect(new WebhookNotFoundError('x').code).toBe('not_found');
    expect(new WebhookStateError('endpoint_disabled', 'x').code).toBe('endpoint_disabled');
  });
});
