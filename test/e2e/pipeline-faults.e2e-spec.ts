import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { createDataSource } from '@app/database';
import { raiseAlarm } from '@app/domain';
import { writeOutboxEvent, type EventEnvelope, type EventType } from '@app/events';
import { verifyWebhookRequest } from '@app/webhook-kit';
import { WebhookEndpointsService, type CreatedWebhookEndpoint } from '@app/webhooks';
import { API } from '../support/api';
import { AppProcess, builtApp, freePort, waitShowingOutput } from '../support/app-process';
import { AMQP_URL, deleteEventTopology } from '../support/broker';
import { registerDevice } from '../support/devices';
import { createAccount, createCredential } from '../support/fixtures';
import { generateTestCertificate, HttpsReceiver, type ReceivedWebhook, type Reply } from '../support/https-receiver';
import { TcpProxy } from '../support/tcp-proxy';
import type { AccountId } from '@app/vocabulary';

/**
 * Process-level faults: the built api and dispatcher run as child processes (dist/), each reaching
 * RabbitMQ through a TCP proxy of its own, and are killed for real (SIGKILL: no shutdown hook
 * runs). Whatever happens, every committed event must reach the receiver at least once.
 */

// Fail the suite at once, with the fix in the message, rather than test a missing or stale build.
builtApp('api');
builtApp('dispatcher');

// Broker names of this suite only (under the run's prefix): no other suite's messages in its queue.
const prefix = `${process.env.AMQP_PREFIX as string}_faults`;
const DEADLINE_MS = 30_000;

interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  event_id: string;
  body: Buffer;
  next_attempt_at: Date | null;
  lease_until: Date | null;
}

describe('event pipeline under process faults (built apps as child processes)', () => {
  const processes = new Set<AppProcess>();
  let api: AppProcess;
  let dispatcher: AppProcess;
  let receiver: HttpsReceiver;
  let caDir: string;
  let dataSource: DataSource;
  let endpoints: WebhookEndpointsService;
  let apiBroker: TcpProxy;
  let dispatcherBroker: TcpProxy;

  function childEnv(broker: TcpProxy, settings: Record<string, string>): NodeJS.ProcessEnv {
    const amqpUrl = new URL(AMQP_URL);
    amqpUrl.hostname = '127.0.0.1';
    amqpUrl.port = String(broker.port);
    return {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info', // kept in memory, shown when a wait fails
      AMQP_URL: amqpUrl.toString(),
      AMQP_PREFIX: prefix,
      NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_POLL_INTERVAL_MS: '250',
      OUTBOX_POLL_INTERVAL_MS: '250',
      INGEST_CONSUMER: 'off',
      OPS_PORT: '0', // the api's ops port: any free one (several apis run at once)
      ...settings,
    };
  }

  /** Waits for a condition; a timeout shows what the child processes logged. */
  function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = DEADLINE_MS): Promise<T> {
    return waitShowingOutput(processes, what, probe, timeoutMs);
  }

  async function startApi(): Promise<AppProcess> {
    const port = await freePort();
    const child = AppProcess.spawn('api', 'api', port, childEnv(apiBroker, { PORT: String(port) }));
    processes.add(child);
    await until('the api to listen', async () => (await child.status('/health/live')) === 200 || !child.running);
    if (!child.running) throw new Error(`the api exited at start\n${child.output()}`);
    return child;
  }

  async function startDispatcher(): Promise<AppProcess> {
    const port = await freePort();
    const child = AppProcess.spawn('dispatcher', 'dispatcher', port, childEnv(dispatcherBroker, { DISPATCHER_PORT: String(port) }));
    processes.add(child);
    await until('the dispatcher to be ready', async () => (await child.status('/health/ready')) === 200 || !child.running);
    if (!child.running) throw new Error(`the dispatcher exited at start\n${child.output()}`);
    return child;
  }

  const ready = (child: AppProcess) => until(`${child.name} ready (database and broker)`, async () => (await child.status('/health/ready')) === 200);

  beforeAll(async () => {
    const certificate = generateTestCertificate();
    caDir = mkdtempSync(join(tmpdir(), 'pipeline-faults-'));
    writeFileSync(join(caDir, 'ca.pem'), certificate.cert);
    receiver = await HttpsReceiver.start(certificate);
    dataSource = createDataSource(process.env.DATABASE_URL as string, 4);
    await dataSource.initialize();
    endpoints = new WebhookEndpointsService(dataSource, { secretsKey: loadConfig().secretsKey, allowPrivateTargets: true });
    const broker = new URL(AMQP_URL);
    apiBroker = new TcpProxy(broker.hostname, Number(broker.port || 5672));
    dispatcherBroker = new TcpProxy(broker.hostname, Number(broker.port || 5672));
    await Promise.all([apiBroker.up(), dispatcherBroker.up()]);
    [api, dispatcher] = await Promise.all([startApi(), startDispatcher()]);
    await ready(api);
  });

  afterAll(async () => {
    for (const child of processes) await child.kill('SIGKILL');
    await Promise.all([apiBroker?.down(), dispatcherBroker?.down()]);
    await receiver?.close();
    await deleteEventTopology(prefix).catch(() => undefined);
    await dataSource?.destroy();
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  });

  async function endpoint(path: string, events: EventType[] = ['alarm.created'], accountId?: AccountId): Promise<CreatedWebhookEndpoint> {
    const account = accountId ?? (await createAccount(dataSource, `Faults ${path}`));
    return endpoints.create(account, { url: receiver.url(path, '127.0.0.1'), events });
  }

  /** Commits an event as a domain change would (its own transaction); the api's relay publishes it. */
  const commit = (accountId: AccountId, data: Record<string, unknown> = {}, aggregateId = 'faults'): Promise<EventEnvelope> =>
    dataSource.transaction((manager) => writeOutboxEvent(manager, { accountId, type: 'alarm.created', aggregateType: 'alarm', aggregateId, data }));

  const deliveries = (endpointId: string): Promise<DeliveryRow[]> =>
    dataSource.query('SELECT id, status, attempts, event_id, body, next_attempt_at, lease_until FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [endpointId]);

  const attemptLog = (deliveryId: string): Promise<Array<{ id: string; outcome: string; status_code: number | null }>> =>
    dataSource.query('SELECT id, outcome, status_code FROM webhook_attempts WHERE webhook_delivery_id = $1 ORDER BY attempt_number', [deliveryId]);

  const publishedAt = async (eventId: string): Promise<Date | null> =>
    (await dataSource.query('SELECT published_at FROM outbox_events WHERE id = $1', [eventId]))[0].published_at;

  const succeeded = (endpointId: string, eventId: string): Promise<DeliveryRow> =>
    until(`the delivery of ${eventId}`, async () => (await deliveries(endpointId)).find((d) => d.event_id === eventId && d.status === 'succeeded'));

  const verifies = (request: ReceivedWebhook, secret: string): boolean => verifyWebhookRequest(request.headers, request.rawBody, [secret]) !== null;

  /** The receiver's view of a retried delivery: one event id and one body, a new delivery id and a valid signature each time. */
  function expectSameEventEveryAttempt(received: ReceivedWebhook[], envelope: EventEnvelope, delivery: DeliveryRow, secret: string): void {
    expect(new Set(received.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([envelope.id]));
    expect(new Set(received.map((r) => r.headers['x-service-delivery-id'])).size).toBe(received.length);
    for (const request of received) {
      expect(request.rawBody.equals(delivery.body)).toBe(true);
      expect(verifies(request, secret)).toBe(true);
    }
    expect(JSON.parse(delivery.body.toString('utf8'))).toEqual(envelope);
  }

  describe('dispatcher killed with SIGKILL mid-retry', () => {
    it('while the retry waits in PostgreSQL: a new dispatcher process completes it', async () => {
      const path = '/kill/between-attempts';
      // The second 503 pushes the next attempt 3 s away: the kill lands while nothing is in flight.
      receiver.script(path, [{ status: 503 }, { status: 503, headers: { 'Retry-After': '3' } }], { status: 204 });
      const hook = await endpoint(path);
      const envelope = await commit(hook.account_id, { case: 'between-attempts' });
      await until('two failed attempts recorded', async () => (await deliveries(hook.id)).find((d) => d.attempts === 2 && d.status === 'pending'));

      const exit = await dispatcher.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      expect(receiver.received(path)).toHaveLength(2);

      dispatcher = await startDispatcher();
      const delivery = await succeeded(hook.id, envelope.id);
      expect(delivery.attempts).toBe(3);
      expect(await deliveries(hook.id)).toHaveLength(1);
      const received = receiver.received(path);
      expect(received).toHaveLength(3);
      expectSameEventEveryAttempt(received, envelope, delivery, hook.signing_secret);
      const log = await attemptLog(delivery.id);
      expect(log.map((a) => [a.outcome, a.status_code])).toEqual([['retry', 503], ['retry', 503], ['succeeded', 204]]);
      expect(log.map((a) => a.id)).toEqual(received.map((r) => r.headers['x-service-delivery-id']));
    });

    it('while a retry is in the receiver’s hands: the claim’s lease runs out and a new process delivers it', async () => {
      const path = '/kill/in-flight';
      const killDispatcher: Reply = {
        status: 503,
        hang: true,
        before: async () => {
          await dispatcher.kill('SIGKILL');
        },
      };
      receiver.script(path, [{ status: 503 }, killDispatcher], { status: 204 });
      const hook = await endpoint(path);
      const envelope = await commit(hook.account_id, { case: 'in-flight' });
      await until('the dispatcher to die during the second attempt', () => receiver.received(path).length === 2 && !dispatcher.running);

      // The unrecorded attempt leaves the delivery pending and claimed: due again only when the lease ends.
      const [claimed] = await deliveries(hook.id);
      expect(claimed).toMatchObject({ status: 'pending', attempts: 1 });
      expect(claimed.lease_until!.getTime()).toBeGreaterThan(Date.now() + 30_000);
      // The lease has run out: the claim's, and the dead process's (webhook_dispatchers), whose slot grants go with it.
      await dataSource.query('UPDATE webhook_deliveries SET lease_until = now() WHERE id = $1', [claimed.id]);
      const [dead] = await dataSource.query(
        `SELECT d.worker_id, d.until FROM webhook_dispatchers d JOIN webhook_slot_grants g USING (worker_id) WHERE g.scope = 'endpoint' AND g.key = $1`,
        [hook.id],
      );
      expect(dead.until.getTime()).toBeGreaterThan(Date.now() + 30_000);
      await dataSource.query('UPDATE webhook_dispatchers SET until = now() WHERE worker_id = $1', [dead.worker_id]);

      dispatcher = await startDispatcher();
      const delivery = await succeeded(hook.id, envelope.id);
      expect(await deliveries(hook.id)).toHaveLength(1);
      const received = receiver.received(path);
      expect(received).toHaveLength(3);
      expectSameEventEveryAttempt(received, envelope, delivery, hook.signing_secret);
      // At least once: the attempt cut short by the kill is not in the log; the others are.
      const log = await attemptLog(delivery.id);
      expect(log.map((a) => [a.outcome, a.status_code])).toEqual([['retry', 503], ['succeeded', 204]]);
      expect(log.map((a) => a.id)).toEqual([received[0], received[2]].map((r) => r.headers['x-service-delivery-id']));
    });
  });

  it('RabbitMQ unreachable from both apps: every event committed before, during and after the outage is delivered', async () => {
    const path = '/outage';
    receiver.script(path, [], { status: 204 });
    const hook = await endpoint(path);
    await succeeded(hook.id, (await commit(hook.account_id, { phase: 'before' })).id); // the pipeline works through the proxies

    // A writer keeps committing across the cut and the restore (two aggregates, ordered per aggregate).
    const committed: EventEnvelope[] = [];
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        committed.push(await commit(hook.account_id, { n }, `outage-${n % 2}`));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    })();
    try {
      await until('events committed before the cut', () => committed.length >= 5);
      await Promise.all([apiBroker.down(), dispatcherBroker.down()]);
      await until('both apps to report the broker down', async () => (await api.status('/health/ready')) === 503 && (await dispatcher.status('/health/ready')) === 503);
      const cut = committed.length;
      await until('events committed during the outage', () => committed.length >= cut + 15);
      const duringOutage = committed.slice(cut);
      for (const envelope of duringOutage) expect(await publishedAt(envelope.id)).toBeNull();

      await Promise.all([apiBroker.up(), dispatcherBroker.up()]);
      const restored = committed.length;
      await until('events committed after the restore', () => committed.length >= restored + 5);
    } finally {
      writing = false;
      await writer;
    }

    for (const envelope of committed) await succeeded(hook.id, envelope.id);
    const rows = await deliveries(hook.id);
    expect(rows).toHaveLength(committed.length + 1); // one delivery per event, however often it was published
    expect(rows.every((d) => d.status === 'succeeded')).toBe(true);
    const receivedIds = new Set(receiver.received(path).map((r) => r.headers['x-service-event-id']));
    for (const envelope of committed) expect(receivedIds.has(envelope.id)).toBe(true);
    await Promise.all([ready(api), ready(dispatcher)]);
  });

  it('api killed after commit, before publish: a new api process publishes the waiting rows; all delivered', async () => {
    const path = '/api-killed';
    receiver.script(path, [], { status: 204 });
    const accountId = await createAccount(dataSource, 'Faults api killed');
    const hook = await endpoint(path, ['alarm.created', 'alarm.resolved'], accountId);
    const credential = await createCredential(dataSource, [accountId], ['alarms:read', 'alarms:write']);
    const device = await registerDevice(dataSource, accountId);
    const [{ lifecycle }] = await dataSource.query('SELECT id AS lifecycle FROM device_lifecycles WHERE device_id = $1 AND ended_at IS NULL', [device.id]);

    // The api's relay cannot reach RabbitMQ: what it commits now stays in its outbox.
    await apiBroker.down();
    await until('the api to report the broker down', async () => (await api.status('/health/ready')) === 503);
    const alarm = await dataSource.transaction((manager) =>
      raiseAlarm(manager, { accountId, deviceId: device.id, lifecycleId: lifecycle, shipmentId: null, type: 'TEMPERATURE', severity: 'WARNING', source: 'THRESHOLD', message: 'too warm', triggeredAt: new Date() }),
    );
    if (!alarm) throw new Error('alarm not raised');
    // The api process itself commits `alarm.resolved` (same transaction as the change), answers, and dies.
    const token = await fetch(api.url(`${API}/oauth/token/`), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const resolved = await fetch(api.url(`${API}/alarms/${alarm.id}/`), {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ resolved: true }),
    });
    expect(resolved.status).toBe(200);
    expect((await api.kill('SIGKILL')).signal).toBe('SIGKILL');

    const waiting: Array<{ id: string; event_type: string; published_at: Date | null }> = await dataSource.query(
      'SELECT id, event_type, published_at FROM outbox_events WHERE aggregate_id = $1 ORDER BY seq',
      [alarm.id],
    );
    expect(waiting.map((row) => [row.event_type, row.published_at])).toEqual([['alarm.created', null], ['alarm.resolved', null]]);
    expect(await deliveries(hook.id)).toEqual([]);

    await apiBroker.up();
    api = await startApi();
    for (const row of waiting) {
      await succeeded(hook.id, row.id);
      // The relay marks a row published after the broker's confirm, in its own transaction: the
      // dispatcher may deliver before that commit lands, so wait for it rather than race it.
      await until(`${row.id} marked published`, async () => (await publishedAt(row.id)) instanceof Date);
    }
    expect(await deliveries(hook.id)).toHaveLength(2);
    const received = receiver.received(path);
    expect(new Set(received.map((r) => r.headers['x-service-event']))).toEqual(new Set(['alarm.created', 'alarm.resolved']));
    for (const request of received) expect(verifies(request, hook.signing_secret)).toBe(true);
    const resolvedBody = received.find((r) => r.headers['x-service-event'] === 'alarm.resolved');
    expect(JSON.parse(resolvedBody!.rawBody.toString('utf8'))).toMatchObject({ id: waiting[1].id, type: 'alarm.resolved', data: { id: alarm.id } });
  });
});
