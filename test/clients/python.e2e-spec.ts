import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '@app/config';
import { createLogger } from '@app/observability';
import { WebhookEndpointsService } from '@app/webhooks';
import { OutboxRelay } from '../../apps/api/src/outbox/outbox-relay';
import { createDispatcherApp } from '../../apps/dispatcher/src/dispatcher-app';
import { API, startListeningApi, type TestApi } from '../support/api';
import { createAccount, createCredential, createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { backdateLifecycle, ingestService, minutesAgo, point, registerDevices, setThresholds } from '../support/devices';
import { createShipment, shipmentBody } from '../support/shipments';
import { createTemplateRefs } from '../support/catalogue';
import { generateTestCertificate, HttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait';

/**
 * Issue 15 item 7 for the Python client: its unittest suites run as a child process against the
 * real api (and, for webhooks, deliveries made by the real dispatcher). Two children run side by
 * side: the main suite, and the 429 suite against a second api with a limit of 5 requests a
 * minute (its fixed window is opened first thing, so the wait for Retry-After overlaps the rest).
 */
const PYTHON_TESTS = join(process.cwd(), 'clients', 'python', 'tests');
const EVENTS = ['alarm.created', 'shipment.created', 'shipment.completed'] as const;

interface ChildResult {
  code: number | null;
  output: string;
}

function runPython(modules: string[], env: Record<string, string>): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'unittest', '-v', ...modules], {
      cwd: PYTHON_TESTS,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

function expectPassed(result: ChildResult, modules: string[]): void {
  if (result.code !== 0 || /skipped/i.test(result.output)) {
    throw new Error(`python3 -m unittest ${modules.join(' ')} exited ${result.code}:\n${result.output}`);
  }
  expect(result.output).toMatch(/Ran [1-9]\d* tests? in/);
  expect(result.output).toMatch(/\nOK\s*$/);
}

describe('Python client (clients/python) against the running service', () => {
  let limited: TestApi & { base: string };
  let api: TestApi & { base: string };
  let dispatcher: INestApplication;
  let receiver: HttpsReceiver;
  let tenant: Tenant;
  let workDir: string;
  const env: Record<string, string> = {};
  const limitedEnv: Record<string, string> = {};

  beforeAll(async () => {
    // The rate-limited api first: one call opens the credential's 60 s window.
    limited = await startListeningApi({ RATE_LIMIT_PER_MINUTE: '5', OUTBOX_RELAY: 'off' });
    const limitedTenant = await createTenant(limited.app, ['devices:read'], 'Python limited');
    await request(limited.base).get(`${API}/devices/`).set(limitedTenant.auth).expect(200);
    Object.assign(limitedEnv, {
      COLDCHAIN_LIMITED_BASE_URL: `${limited.base}${API}`,
      COLDCHAIN_LIMITED_CLIENT_ID: limitedTenant.credential.client_id,
      COLDCHAIN_LIMITED_CLIENT_SECRET: limitedTenant.credential.client_secret,
    });

    api = await startListeningApi({ OUTBOX_POLL_INTERVAL_MS: '200' });
    const relay = api.app.get(OutboxRelay);
    await relay.waitUntilConnected();
    const db = dataSourceOf(api.app);

    // Account A (the single-account credential), B, and a multi-account credential for both.
    tenant = await createTenant(api.app, undefined, 'Python A');
    const accountB = await createAccount(db, 'Python B');
    const foreign = await createAccount(db, 'Python foreign');
    const multi = await createCredential(db, [tenant.accountId, accountB]);
    const devices = (await registerDevices(db, tenant.accountId, 8)).map((d) => d.id);
    await registerDevices(db, accountB, 2);

    // Telemetry for one device over the last 6 hours (every 10 minutes), then a 95 °C point: alarm.created.
    const [measured] = devices;
    await backdateLifecycle(db, measured, minutesAgo(2 * 24 * 60));
    await setThresholds(db, measured, { temperature_min: 2, temperature_max: 8 });
    const points = Array.from({ length: 36 }, (_, i) => point(measured, minutesAgo(360 - i * 10), { temperature: 5 + (i % 3) }));
    await ingestService(db).ingest(points);

    // The webhook pipeline: HTTPS receiver, endpoint of account A, the real dispatcher.
    const certificate = generateTestCertificate();
    receiver = await HttpsReceiver.start(certificate);
    const dispatcherConfig = loadConfig({ ...process.env, WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_TIMEOUT_MS: '10000' });
    dispatcher = await createDispatcherApp(dispatcherConfig, createLogger('silent', 'dispatcher-test'), { ca: certificate.cert });
    const endpoints = new WebhookEndpointsService(db, { secretsKey: dispatcherConfig.secretsKey, allowPrivateTargets: true });
    const hook = await endpoints.create(tenant.accountId, { url: receiver.url('/python-hooks'), events: [...EVENTS] });

    await ingestService(db).ingest([point(measured, minutesAgo(1), { temperature: 95 })]);
    const refs = await createTemplateRefs(api, tenant);
    const shipment = await createShipment(api, tenant, shipmentBody(refs, devices.slice(6, 8), { reference: 'PY-HOOKS' }));
    await api.http.post(`${API}/shipments/${shipment.id}/complete/`).set(tenant.auth).expect(200);
    await relay.flush();
    const received = await waitFor(
      'the dispatcher to deliver alarm.created, shipment.created and shipment.completed',
      () => {
        const all = receiver.received('/python-hooks');
        const types = new Set(all.map((r) => r.headers['x-service-event']));
        return EVENTS.every((type) => types.has(type)) ? all : undefined;
      },
      30_000,
    );
    workDir = mkdtempSync(join(tmpdir(), 'python-client-'));
    const deliveries = join(workDir, 'deliveries.json');
    writeFileSync(deliveries, JSON.stringify(received.map((r) => ({ headers: r.headers, body: r.rawBody.toString('base64') }))));

    Object.assign(env, {
      COLDCHAIN_BASE_URL: `${api.base}${API}`,
      COLDCHAIN_CLIENT_ID: tenant.credential.client_id,
      COLDCHAIN_CLIENT_SECRET: tenant.credential.client_secret,
      COLDCHAIN_MULTI_CLIENT_ID: multi.client_id,
      COLDCHAIN_MULTI_CLIENT_SECRET: multi.client_secret,
      COLDCHAIN_ACCOUNT_A: tenant.accountId,
      COLDCHAIN_ACCOUNT_B: accountB,
      COLDCHAIN_FOREIGN_ACCOUNT: foreign,
      COLDCHAIN_TELEMETRY_DEVICE: measured,
      COLDCHAIN_WEBHOOK_DELIVERIES: deliveries,
      COLDCHAIN_WEBHOOK_SECRET: hook.signing_secret,
      COLDCHAIN_WEBHOOK_EVENTS: EVENTS.join(','),
    });
  }, 90_000);

  afterAll(async () => {
    await dispatcher?.close();
    await receiver?.close();
    await api?.close();
    await limited?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('passes its unittest suites: tokens, accounts, paging, idempotency, errors, reports, 429 retries, dispatcher deliveries', async () => {
    const main = ['test_integration_api', 'test_integration_webhooks'];
    const rateLimit = ['test_integration_rate_limit'];
    const [mainResult, rateLimitResult] = await Promise.all([runPython(main, env), runPython(rateLimit, limitedEnv)]);
    expectPassed(mainResult, main);
    expectPassed(rateLimitResult, rateLimit);
  }, 120_000);
});
