import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { loadConfig } from '@app/config';
import { createLogger } from '@app/observability';
import { WebhookEndpointsService } from '@app/webhooks';
import { RateLimitGuard } from '../../apps/api/src/auth/rate-limit.guard';
import { OutboxRelay } from '../../apps/api/src/outbox/outbox-relay';
import { ReportWorker } from '../../apps/api/src/reports/report-worker';
import { createDispatcherApp } from '../../apps/dispatcher/src/dispatcher-app';
import { API, startListeningApi, type TestApi } from '../support/api';
import { createAccount, createCredential, createTenant, dataSourceOf } from '../support/fixtures';
import { backdateLifecycle, ingestService, minutesAgo, point, registerDevices, setThresholds } from '../support/devices';
import { generateTestCertificate, HttpsReceiver, type ReceivedWebhook } from '../support/https-receiver';
import { createShipment, shipmentBody, shipmentWorld } from '../support/shipments';
import { waitFor } from '../support/wait';

/**
 * The .NET client (clients/dotnet) against the real api and dispatcher: builds it with Mono, boots
 * the service, makes the data, then runs the compiled test runner with the service's address and
 * credentials in its environment (clients/dotnet/tests/LiveTests.cs holds the assertions).
 */
const ROOT = process.cwd();
const BIN = join(ROOT, 'clients', 'dotnet', 'bin');
const has = (command: string): boolean => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
const MONO = has('mono') && has('mcs');
if (!MONO) {
  console.warn('SKIPPED test/clients/dotnet.e2e-spec.ts: mono/mcs are not installed (apt-get install -y $(cat clients/dotnet/ci-packages.txt)).');
}
const suite = MONO ? describe : describe.skip;

/**
 * Runs the compiled test runner without blocking this process (the api answers it from here).
 * `onLine` sees each line the runner prints and may answer on its stdin.
 */
function runDotnetTests(
  env: Record<string, string>,
  args: string[],
  onLine: (line: string, answer: (text: string) => void) => Promise<void> | void = () => undefined,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('mono', [join(BIN, 'Coldchain.Client.Tests.exe'), '--no-skip', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let pending = '';
    const answer = (text: string): void => void child.stdin.write(`${text}\n`);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        Promise.resolve(onLine(line.trim(), answer)).catch((error: unknown) => {
          child.kill('SIGKILL');
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function expectPassed(result: { code: number | null; output: string }): void {
  // DOTNET_E2E_LOG=<file> keeps the runner's output of passing runs too
  if (process.env.DOTNET_E2E_LOG) writeFileSync(process.env.DOTNET_E2E_LOG, result.output, { flag: 'a' });
  if (result.code !== 0) throw new Error(`the .NET tests failed (exit ${result.code}):\n${result.output}`);
  expect(result.output).toMatch(/tests: \d+ passed, 0 failed, 0 skipped/);
}

/** The api's rate-limit guard (an APP_GUARD, so not reachable with app.get). */
function rateLimitGuard(app: INestApplication): RateLimitGuard {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.providers.values()) {
      if (wrapper.instance instanceof RateLimitGuard) return wrapper.instance;
    }
  }
  throw new Error('RateLimitGuard not found');
}

suite('.NET client against the real service', () => {
  let api: TestApi & { base: string };
  let dispatcher: INestApplication;
  let receiver: HttpsReceiver;
  let work: string;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    const build = spawnSync(process.execPath, ['scripts/clients/build-dotnet.js', '--quiet'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`build-dotnet failed:\n${build.stderr}`);
    work = mkdtempSync(join(tmpdir(), 'coldchain-dotnet-'));

    const certificate = generateTestCertificate();
    receiver = await HttpsReceiver.start(certificate);
    api = await startListeningApi({ OUTBOX_POLL_INTERVAL_MS: '200' });
    await api.app.get(OutboxRelay).waitUntilConnected();
    const config = loadConfig({ ...process.env, WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_TIMEOUT_MS: '10000' });
    dispatcher = await createDispatcherApp(config, createLogger('silent', 'dispatcher-test'), { ca: certificate.cert });
    const db = dataSourceOf(api.app);

    // account A: six approved devices, a catalogue, a webhook endpoint
    const world = await shipmentWorld(api, 6, undefined, 'DotNet A');
    const tenant = world.tenant;
    const webhooks = new WebhookEndpointsService(db, { secretsKey: config.secretsKey, allowPrivateTargets: true });
    const hook = await webhooks.create(tenant.accountId, { url: receiver.url('/dotnet'), events: ['alarm.created', 'shipment.created', 'shipment.completed'] });

    // telemetry of the last 12 hours on one device, with a point above its threshold (alarm.created)
    const [telemetryDevice, free1, free2] = world.devices;
    await backdateLifecycle(db, telemetryDevice, new Date(Date.now() - 2 * 24 * 3_600_000));
    await setThresholds(db, telemetryDevice, { temperature_min: 2, temperature_max: 8 });
    const points = Array.from({ length: 24 }, (_, i) => point(telemetryDevice, minutesAgo(30 * (i + 1)), { temperature: 5, humidity: 40, battery: 90 }));
    await ingestService(db).ingest([...points, point(telemetryDevice, minutesAgo(5), { temperature: 95 })]);

    // a completed shipment with its reports (shipment.created, shipment.completed)
    const reported = await createShipment(api, tenant, shipmentBody(world.refs, [world.devices[4], world.devices[5]], { reference: 'DOTNET-REPORTED' }));
    await api.http.post(`${API}/shipments/${reported.id}/complete/`).set(tenant.auth).expect(200);
    await api.app.get(ReportWorker).idle();

    // a credential of two accounts (A and B), and an account it may not use
    const other = await createAccount(db, 'DotNet B');
    await registerDevices(db, other, 2);
    const foreign = await createAccount(db, 'DotNet Foreign');
    const multi = await createCredential(db, [tenant.accountId, other]);

    // the deliveries the real dispatcher made, for the verification test
    const delivered = await waitFor('webhook deliveries of alarm.created, shipment.created and shipment.completed', () => {
      const received = receiver.received('/dotnet');
      const types = new Set(received.map((r) => r.headers['x-service-event']));
      return ['alarm.created', 'shipment.created', 'shipment.completed'].every((t) => types.has(t)) ? received : undefined;
    }, 30_000);
    const file = join(work, 'deliveries.json');
    const headerValue = (value: ReceivedWebhook['headers'][string]): string => (Array.isArray(value) ? value[0] : (value ?? ''));
    writeFileSync(
      file,
      JSON.stringify(
        delivered.map((r) => ({
          headers: Object.fromEntries(Object.entries(r.headers).map(([name, value]) => [name, headerValue(value)])),
          body_base64: r.rawBody.toString('base64'),
        })),
      ),
    );

    Object.assign(env, {
      COLDCHAIN_BASE_URL: `${api.base}${API}`,
      COLDCHAIN_CLIENT_ID: tenant.credential.client_id,
      COLDCHAIN_CLIENT_SECRET: tenant.credential.client_secret,
      COLDCHAIN_ACCOUNT_ID: tenant.accountId,
      COLDCHAIN_MULTI_CLIENT_ID: multi.client_id,
      COLDCHAIN_MULTI_CLIENT_SECRET: multi.client_secret,
      COLDCHAIN_OTHER_ACCOUNT_ID: other,
      COLDCHAIN_FOREIGN_ACCOUNT_ID: foreign,
      COLDCHAIN_FREE_DEVICE_IDS: [free1, free2].join(','),
      COLDCHAIN_TELEMETRY_DEVICE_ID: telemetryDevice,
      COLDCHAIN_REPORTED_SHIPMENT_ID: String(reported.id),
      COLDCHAIN_WEBHOOK_FILE: file,
      COLDCHAIN_WEBHOOK_SECRET: hook.signing_secret,
    });
  });

  afterAll(async () => {
    await dispatcher?.close();
    await api?.close();
    await receiver?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('passes the client test suite: tokens, accounts, paging, idempotency, typed errors, streaming download, webhook deliveries', async () => {
    expectPassed(await runDotnetTests(env, []));
  });

  it('retries a 429 of a low rate limit after Retry-After', async () => {
    const limited = await startListeningApi({ RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const tenant = await createTenant(limited.app, undefined, 'DotNet Limited');
      const guard = rateLimitGuard(limited.app) as unknown as { perCredential: { limiter: { set(key: string, points: number, seconds: number): Promise<unknown> } } };
      expectPassed(
        await runDotnetTests(
          { COLDCHAIN_BASE_URL: `${limited.base}${API}`, COLDCHAIN_CLIENT_ID: tenant.credential.client_id, COLDCHAIN_CLIENT_SECRET: tenant.credential.client_secret },
          ['--category', 'ratelimit'],
          async (line, answer) => {
            if (line !== 'READY') return;
            // The credential has now spent its 5 requests, in a window with 3 s left (a fresh window
            // is 60 s long, too long to wait for here): its next request is refused with Retry-After.
            await guard.perCredential.limiter.set(tenant.credential.id, 5, 3);
            answer('GO');
          },
        ),
      );
    } finally {
      await limited.close();
    }
  });
});
