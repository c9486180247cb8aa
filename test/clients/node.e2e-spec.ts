import type { AccountId } from '@app/vocabulary';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { createLogger } from '@app/observability';
import { WebhookEndpointsService, type CreatedWebhookEndpoint } from '@app/webhooks';
import { createDispatcherApp } from '../../apps/dispatcher/src/dispatcher-app';
import { ReportWorker } from '../../apps/api/src/reports/report-worker';
import { startListeningApi, type TestApi } from '../support/api';
import { createAccount, createCredential, createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { backdateLifecycle, ingestService, point, registerDevices } from '../support/devices';
import { generateTestCertificate, HttpsReceiver, type ReceivedWebhook } from '../support/https-receiver';
import { waitFor } from '../support/wait';
import {
  AuthenticationError,
  BadRequestError,
  ColdchainClient,
  ConflictError,
  isEventType,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  verifyWebhook,
  WebhookVerificationError,
  type ClientOptions,
} from '../../clients/node/src/index';

/**
 * The Node.js client (clients/node) against the real service: the api on a loopback port, a
 * second api with a low rate limit, RabbitMQ, the real webhook dispatcher and an HTTPS receiver.
 * The built package (ESM) runs the quick-start example twice in a child process.
 */
const ROOT = process.cwd();
const CIRCLE = { type: 'circle', center: { latitude: 38.4382, longitude: 27.1442 }, radius_m: 750 };

type ApiWithBase = TestApi & { base: string };

describe('Node.js client against the real service', () => {
  let api: ApiWithBase;
  let limited: ApiWithBase;
  let limitedClient: ColdchainClient;
  let limitedLog: string[];
  let dispatcher: INestApplication;
  let receiver: HttpsReceiver;
  let db: DataSource;
  let tenant: Tenant;
  let devices: string[];
  let hook: CreatedWebhookEndpoint;
  let otherAccount: AccountId;
  let multi: { client_id: string; client_secret: string };
  /** Origin and destination locations for shipments. */
  let route: { origin_location_id: string; destination_location_id: string };

  /** A client of the main api, with a fetch that records each request. */
  const clientFor = (credential: { client_id: string; client_secret: string }, options: Partial<ClientOptions> = {}, base = api.base) => {
    const requests: Array<{ method: string; path: string; headers: Record<string, string> }> = [];
    let tamper: ((headers: Record<string, string>) => void) | null = null;
    const recording: typeof fetch = async (input, init) => {
      const headers = { ...((init?.headers ?? {}) as Record<string, string>) };
      if (tamper && headers.Authorization) {
        tamper(headers);
        tamper = null;
      }
      requests.push({ method: init?.method ?? 'GET', path: new URL(String(input)).pathname, headers });
      return fetch(input, { ...init, headers });
    };
    const client = new ColdchainClient({ baseUrl: `${base}/api/public/v1`, clientId: credential.client_id, clientSecret: credential.client_secret, fetch: recording, ...options });
    return {
      client,
      requests,
      tokenRequests: () => requests.filter((r) => r.path.endsWith('/oauth/token/')),
      /** The next authenticated request carries this header set instead (e.g. a token the service no longer accepts). */
      tamperNext: (fn: (headers: Record<string, string>) => void) => (tamper = fn),
    };
  };

  beforeAll(async () => {
    // The low-limit api first: its per-credential window (60 s) starts with the first call, so the
    // 429 test at the end waits only for what is left of it.
    limited = await startListeningApi({ RATE_LIMIT_PER_MINUTE: '5' });
    const limitedTenant = await createTenant(limited.app, undefined, 'Node limited');
    limitedLog = [];
    limitedClient = new ColdchainClient({
      baseUrl: limited.base,
      clientId: limitedTenant.credential.client_id,
      clientSecret: limitedTenant.credential.client_secret,
      maxRetries: 2,
      maxRetryTimeMs: 65_000,
      logger: { warn: (line) => limitedLog.push(line), debug: (line) => limitedLog.push(line) },
    });
    await limitedClient.accounts.list().firstPage(); // 1 of 5

    const certificate = generateTestCertificate();
    receiver = await HttpsReceiver.start(certificate);
    api = await startListeningApi({ OUTBOX_POLL_INTERVAL_MS: '200' });
    db = dataSourceOf(api.app);
    const config = loadConfig({ ...process.env, WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0', WEBHOOK_POLL_INTERVAL_MS: '100' });
    dispatcher = await createDispatcherApp(config, createLogger('silent', 'dispatcher-test'), { ca: certificate.cert });

    tenant = await createTenant(api.app, undefined, 'Node client');
    devices = (await registerDevices(db, tenant.accountId, 6)).map((d) => d.id);
    const service = new WebhookEndpointsService(db, { secretsKey: config.secretsKey, allowPrivateTargets: true });
    hook = await service.create(tenant.accountId, { url: receiver.url('/node-client'), events: ['shipment.created', 'shipment.completed'] });

    const setup = new ColdchainClient({ baseUrl: api.base, clientId: tenant.credential.client_id, clientSecret: tenant.credential.client_secret });
    const [origin, destination] = await Promise.all(['Origin', 'Destination'].map((name) => setup.locations.create({ name, kind: 'warehouse', geofence: CIRCLE } as never)));
    route = { origin_location_id: origin.id, destination_location_id: destination.id };

    otherAccount = await createAccount(db, 'Node client second');
    await registerDevices(db, otherAccount, 1);
    multi = await createCredential(db, [tenant.accountId, otherAccount]);

    // Telemetry of the last hours for the first device (one point every 10 minutes).
    const now = Date.now();
    await backdateLifecycle(db, devices[0], new Date(now - 24 * 3_600_000));
    await ingestService(db).ingest(Array.from({ length: 12 }, (_, i) => point(devices[0], new Date(now - (i + 1) * 600_000), { temperature: 4 + (i % 3) })));
  });

  afterAll(async () => {
    await dispatcher?.close();
    await api?.close();
    await limited?.close();
    await receiver?.close();
  });

  it('fetches the token on first use, caches it, and refreshes it once on a 401', async () => {
    const { client, tokenRequests, requests, tamperNext } = clientFor(tenant.credential);
    expect(tokenRequests()).toHaveLength(0); // nothing before the first call
    await client.devices.list().firstPage();
    await client.accounts.list().firstPage();
    await client.devices.get(devices[0]);
    expect(tokenRequests()).toHaveLength(1);

    // A token the service does not accept (as after a signing-key rotation): one refresh, then success.
    tamperNext((headers) => (headers.Authorization = 'Bearer not.a.valid.token'));
    const device = await client.devices.get(devices[0]);
    expect(device.id).toBe(devices[0]);
    expect(tokenRequests()).toHaveLength(2);
    const calls = requests.filter((r) => r.path.endsWith(`/devices/${devices[0]}/`));
    expect(calls.map((r) => r.headers.Authorization === 'Bearer not.a.valid.token')).toEqual([false, true, false]);

    // Wrong secret: a typed 401 from the token endpoint, and the secret is nowhere in it.
    const wrong = clientFor({ client_id: tenant.credential.client_id, client_secret: 'wrong-secret-1234567890' }).client;
    const error = await wrong.devices.list().firstPage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_client' });
    expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain('wrong-secret-1234567890');

    // Narrower scopes on request: the service answers 403 insufficient_scope.
    const narrow = clientFor(tenant.credential, { scopes: ['devices:read'] }).client;
    await expect(narrow.devices.get(devices[0])).resolves.toMatchObject({ id: devices[0] });
    await expect(narrow.accounts.list().firstPage()).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('selects the account: constructor option, per call, withAccount(); refuses without one', async () => {
    const { client, requests } = clientFor(multi);
    const missing = await client.devices.list().firstPage().catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(BadRequestError);
    expect(missing).toMatchObject({ code: 'account_selection_required' });

    const primary = clientFor(multi, { accountId: tenant.accountId }).client;
    expect((await primary.devices.list().toArray()).map((d) => d.id).sort()).toEqual([...devices].sort());
    const second = await primary.devices.list(undefined, { accountId: otherAccount }).toArray();
    expect(second).toHaveLength(1);
    expect(await primary.withAccount(otherAccount).devices.list().toArray()).toEqual(second);
    expect(primary.accountId).toBe(tenant.accountId);

    const foreign = await primary.devices.list(undefined, { accountId: randomUUID() }).firstPage().catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(PermissionDeniedError);
    expect(foreign).toMatchObject({ status: 403, code: 'account_not_allowed' });
    expect(requests.find((r) => r.path.endsWith('/devices/'))?.headers['X-Service-Account-ID']).toBeUndefined();
  });

  it('pages through more than one page following links.next', async () => {
    const { client, requests } = clientFor(tenant.credential);
    const listed = client.devices.list({ limit: 2 });
    const pages = [];
    for await (const page of listed.pages()) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 2]);
    expect(pages[2].links.next).toBeNull();
    const all: string[] = [];
    for await (const device of client.devices.list({ limit: 4 })) all.push(device.id);
    expect(all.sort()).toEqual([...devices].sort());
    expect(new Set(all).size).toBe(6);
    const points = await client.telemetry.list(devices[0], { limit: 5, from: new Date(Date.now() - 3 * 3_600_000) }).toArray();
    expect(points).toHaveLength(12);
    expect(requests.filter((r) => r.path.endsWith('/telemetry/'))).toHaveLength(3);
    const buckets = await client.telemetry.buckets(devices[0], { bucket: '1h', from: new Date(Date.now() - 3 * 3_600_000) }).toArray();
    expect(buckets.reduce((sum, b) => sum + b.count, 0)).toBe(12);
  });

  it('replays an idempotent create: same key, same record, Idempotent-Replayed', async () => {
    const { client, requests } = clientFor(tenant.credential);
    const body = { name: `Depot ${randomUUID()}`, kind: 'warehouse', geofence: CIRCLE } as Parameters<typeof client.locations.create>[0];
    const key = `node-e2e-${randomUUID()}`;
    const first = await client.locations.create(body, { idempotencyKey: key });
    const again = await client.locations.create(body, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(first.lastResponse).toMatchObject({ status: 201, idempotentReplayed: false, idempotencyKey: key });
    expect(again.lastResponse).toMatchObject({ status: 201, idempotentReplayed: true });
    expect(requests.filter((r) => r.method === 'POST' && r.path.endsWith('/locations/')).map((r) => r.headers['Idempotency-Key'])).toEqual([key, key]);
    expect((await client.locations.list().toArray()).filter((l) => l.name === body.name)).toHaveLength(1);

    const reused = await client.locations.create({ ...body, name: 'Another' }, { idempotencyKey: key }).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(UnprocessableEntityError);
    expect(reused).toMatchObject({ status: 422, code: 'idempotency_key_reused' });

    const generated = await client.carriers.create({ name: 'Generated key Co', mode: 'road' } as Parameters<typeof client.carriers.create>[0]);
    expect(generated.lastResponse.idempotencyKey).toMatch(/^node-[0-9a-f-]{36}$/);
  });

  it('raises typed errors on 400, 404 and 409 with code, title, detail, field errors and request id', async () => {
    const { client } = clientFor(tenant.credential);
    const invalid = (await client.locations.create({ name: '', kind: 'warehouse', geofence: CIRCLE, colour: 'red' } as never).catch((e: unknown) => e)) as BadRequestError;
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed', title: expect.any(String) });
    expect(invalid.errors.map((e) => e.field)).toEqual(expect.arrayContaining(['name', 'colour']));
    expect(invalid.requestId).toEqual(expect.any(String));

    const missing = (await client.devices.get(randomUUID()).catch((e: unknown) => e)) as NotFoundError;
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', detail: expect.any(String), requestId: expect.any(String) });
    expect(missing.message).toContain('404 not_found');

    const shipment = await client.shipments.create({ reference: 'NODE-409', name: 'Conflict', device_ids: [devices[5]], ...route });
    await client.shipments.complete(shipment.id);
    const conflict = (await client.shipments.complete(shipment.id).catch((e: unknown) => e)) as ConflictError;
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'shipment_not_active', requestId: expect.any(String) });
  });

  it('streams a report to a file and verifies the dispatcher’s webhook deliveries', async () => {
    const { client } = clientFor(tenant.credential);
    const shipment = await client.shipments.create({ reference: 'NODE-REPORT', name: 'Report shipment', device_ids: [devices[1], devices[2]], ...route });
    await ingestService(db).ingest([point(devices[1], new Date(), { temperature: 5 }), point(devices[2], new Date(), { temperature: 6 })]);
    const share = await client.shipments.share(shipment.id, { expires_in_hours: 2, max_views: 3 });
    expect(share.url).toMatch(/^http/);
    await expect(client.shipments.getShare(shipment.id)).resolves.toMatchObject({ enabled: true, url: share.url });
    const completed = await client.shipments.complete(shipment.id);
    expect(completed.status).toBe('completed');
    await api.app.get(ReportWorker).idle();

    const reports = await waitFor('the reports of the shipment', async () => {
      const listed = await client.reports.list({ shipment_id: shipment.id }).toArray();
      return listed.length >= 2 ? listed : undefined;
    });
    const dir = mkdtempSync(join(tmpdir(), 'node-client-report-'));
    try {
      for (const report of reports) {
        const target = join(dir, report.name);
        const result = await client.reports.downloadTo(report.id, target);
        expect(result).toMatchObject({ bytes: report.size_bytes, sha256: report.sha256, path: target, filename: report.name });
        expect(statSync(target).size).toBe(report.size_bytes);
      }
      const csv = reports.find((r) => r.content_type.startsWith('text/csv'));
      expect(readFileSync(join(dir, csv!.name), 'utf8')).toContain(devices[1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // The real dispatcher delivered shipment.created and shipment.completed for this shipment.
    const ofShipment = (r: ReceivedWebhook) => (JSON.parse(r.rawBody.toString('utf8')) as { data: { id: unknown } }).data.id === shipment.id;
    const received = await waitFor('the two webhook deliveries', () => {
      const mine = receiver.received('/node-client').filter(ofShipment);
      return mine.length >= 2 ? mine : undefined;
    });
    const events = received.map((delivery) => verifyWebhook(delivery.rawBody, delivery.headers, ['an-old-rotated-secret', hook.signing_secret]));
    expect(events.map((e) => e.type).sort()).toEqual(['shipment.completed', 'shipment.created']);
    for (const event of events) {
      if (isEventType(event, 'shipment.completed') || isEventType(event, 'shipment.created')) expect(event.data.id).toBe(shipment.id);
    }
    expect(() => verifyWebhook(received[0].rawBody, received[0].headers, 'not-the-secret')).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(Buffer.concat([received[0].rawBody, Buffer.from(' ')]), received[0].headers, hook.signing_secret)).toThrow(WebhookVerificationError);
  });

  it('the built package (ESM and CommonJS) runs the quick start, twice in a row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-client-package-'));
    try {
      // A copy of the package with its build, so that '@coldchain/client' resolves as for a user.
      cpSync(join(ROOT, 'clients', 'node', 'package.json'), join(dir, 'package.json'));
      cpSync(join(ROOT, 'clients', 'node', 'examples'), join(dir, 'examples'), { recursive: true });
      await run(process.execPath, [join(ROOT, 'scripts', 'clients', 'build-node.js'), '--out', join(dir, 'dist'), '--quiet', '--no-types'], {});
      const cjs = await run(process.execPath, ['-e', "const c = require('@coldchain/client'); process.stdout.write(typeof c.ColdchainClient)"], {}, dir);
      expect(cjs).toBe('function');
      const env = { COLDCHAIN_BASE_URL: api.base, COLDCHAIN_CLIENT_ID: tenant.credential.client_id, COLDCHAIN_CLIENT_SECRET: tenant.credential.client_secret };
      for (let round = 0; round < 2; round += 1) {
        const stdout = await run(process.execPath, [join(dir, 'examples', 'quickstart.mjs')], env, dir);
        const lines = stdout.trim().split('\n');
        expect(lines).toHaveLength(1);
        const result = JSON.parse(lines[0]) as Record<string, unknown>;
        expect(result).toEqual({
          devices: 6,
          telemetry_points: expect.any(Number),
          shipment_id: expect.any(Number),
          share_url: expect.stringMatching(/^http/),
          reports: 2,
          downloaded_bytes: expect.any(Number),
          webhook_verified: true,
        });
        expect(result.downloaded_bytes).toBeGreaterThan(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  // Last: by now most of the low-limit api's 60 s window has passed, so the wait is short.
  it('retries a 429 after Retry-After and then succeeds (RATE_LIMIT_PER_MINUTE=5)', async () => {
    const retried = () => limitedLog.some((line) => line.includes('answered 429 rate_limited; retry'));
    let calls = 0;
    while (!retried() && calls < 12) {
      const page = await limitedClient.accounts.list().firstPage(); // resolves, after waiting out the 429 when it comes
      expect(page.data).toHaveLength(1);
      calls += 1;
    }
    expect(retried()).toBe(true);
    expect(calls).toBeLessThanOrEqual(6);
    expect(limitedLog.join('\n')).not.toMatch(/secret|Bearer/);
  }, 90_000);
});

/** Runs a command; resolves its stdout when it exits 0, rejects with its output otherwise. */
function run(command: string, args: string[], env: Record<string, string>, cwd = ROOT): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${[command, ...args].join(' ')} exited ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    });
  });
}
