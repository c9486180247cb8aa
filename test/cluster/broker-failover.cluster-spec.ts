import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { createDataSource, migrateDatabase } from '@app/database';
import { ingestTopology } from '@app/domain';
import { BrokerConnection, eventTopology, writeOutboxEvent } from '@app/events';
import { WebhookEndpointsService } from '@app/webhooks';
import type { AccountId } from '@app/vocabulary';
import { AppProcess, builtApp, freePort, waitShowingOutput } from '../support/app-process';
import { createDatabase, dropDatabase } from '../support/database';
import { backdateLifecycle, point, registerDevice } from '../support/devices';
import { createAccount } from '../support/fixtures';
import { generateTestCertificate, HttpsReceiver } from '../support/https-receiver';
import { uniqueName } from '../support/test-env';
import { type ClusterNode, RabbitCluster } from './rabbitmq-cluster';

/**
 * `npm run test:cluster`: a 3-node RabbitMQ cluster of the test's own (RabbitCluster), the built
 * api and dispatcher as processes with AMQP_QUEUE_TYPE=quorum and an AMQP_URL list naming the three
 * nodes (each app in another order, so that their connections sit on different nodes), a steady
 * stream of committed events (webhook endpoints on a local receiver) and of gateway telemetry
 * (published with confirms through a BrokerConnection on the same list). The node leading the
 * events queue is SIGKILLed, later brought back; then the node leading the ingestion queue.
 * Checks: every committed event reaches every subscribed endpoint (a repeat only with the same
 * event id), one delivery row per (event, endpoint), every telemetry point stored once, the apps
 * back on surviving nodes within seconds with the same processes, and a message confirmed by a
 * quorum queue survives its leader being killed right after the confirm. Prints the pause in
 * deliveries and in ingestion during each failover (README "Quorum queues and a 3-node cluster").
 */

builtApp('api');
builtApp('dispatcher');

const EVENT_INTERVAL_MS = 40;
const GATEWAY_INTERVAL_MS = 100;
const POINTS_PER_MESSAGE = 5;
/** How long the stream runs on two nodes before the killed one comes back. */
const OBSERVE_MS = 10_000;
/** The promise: both apps are ready again (connected to a surviving node) within this. */
const RECONNECT_BOUND_MS = 15_000;
/**
 * And deliveries resume within this (the measured pauses are in the README). Most failovers pause
 * deliveries for about a second; 1 run in 4 paused them for ~20 s (twice OUTBOX_CONFIRM_TIMEOUT_MS's
 * 10 s, not yet diagnosed: README "Quorum queues and a 3-node cluster"). The bound holds that case
 * so the suite checks what is promised without exception — nothing lost, apps reconnected within
 * RECONNECT_BOUND_MS — and prints every pause; the long pause is an open point, not a pass mark.
 */
const PAUSE_BOUND_MS = 45_000;
const START_DEADLINE_MS = 180_000;
const DRAIN_DEADLINE_MS = 90_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Failover {
  label: string;
  node: string;
  killedAt: number;
  /** Longest time without a webhook arriving at the receiver, around the kill. */
  deliveryPauseMs: number;
  /** Longest time without a new telemetry point stored, around the kill. */
  ingestPauseMs: number;
  /** Longest time the gateway went without a publisher confirm, around the kill. */
  confirmPauseMs: number;
  /** Worst commit-to-receiver latency of the events committed around the kill. */
  worstEventLatencyMs: number;
  /** How long each app's /health/ready was not 200 after the kill (0: its connections were elsewhere). */
  unreadyMs: Record<string, number>;
  /** From `restart` to the node being a member of every quorum queue again. */
  rejoinMs: number;
}

/** Longest gap between consecutive times, counting only gaps that end after `from` and begin before `to`. */
function longestGap(times: number[], from: number, to: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] < from || sorted[i - 1] > to) continue;
    longest = Math.max(longest, sorted[i] - sorted[i - 1]);
  }
  return longest;
}

describe('RabbitMQ cluster: a node dies, nothing is lost', () => {
  const prefix = uniqueName('cc_cluster');
  const databaseName = uniqueName('cc_cluster');
  const processes = new Set<AppProcess>();
  let cluster: RabbitCluster;
  let dataSource: DataSource;
  let receiver: HttpsReceiver;
  let caDir: string;
  let api: AppProcess;
  let dispatcher: AppProcess;
  let gateway: BrokerConnection;
  let gatewayChannel: ConfirmChannel | null = null;

  const until = <T,>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = DRAIN_DEADLINE_MS): Promise<T> =>
    waitShowingOutput(processes, what, probe, timeoutMs);

  function childEnv(databaseUrl: string, amqpUrl: string, settings: Record<string, string>): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn', // the last lines are kept in memory: reconnects and failures, not every readiness poll
      DATABASE_URL: databaseUrl,
      DB_CONNECTION_TIMEOUT_MS: '30000',
      AMQP_URL: amqpUrl,
      AMQP_PREFIX: prefix,
      AMQP_QUEUE_TYPE: 'quorum',
      NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1',
      WEBHOOK_TIMEOUT_MS: '10000',
      WEBHOOK_POLL_INTERVAL_MS: '250',
      OUTBOX_POLL_INTERVAL_MS: '250',
      INGEST_CONSUMER: 'on',
      ...settings,
    };
  }

  async function startApp(name: string, app: 'api' | 'dispatcher', env: NodeJS.ProcessEnv): Promise<AppProcess> {
    const port = await freePort();
    const child = AppProcess.spawn(name, app, port, { ...env, ...(app === 'api' ? { PORT: String(port), OPS_PORT: String(await freePort()) } : { DISPATCHER_PORT: String(port) }) });
    processes.add(child);
    await until(`${name} to be ready`, async () => (await child.status('/health/ready')) === 200 || !child.running, START_DEADLINE_MS);
    if (!child.running) throw new Error(`${name} exited at start\n${child.output()}`);
    return child;
  }

  beforeAll(async () => {
    const certificate = generateTestCertificate();
    caDir = mkdtempSync(join(tmpdir(), 'cluster-ca-'));
    writeFileSync(join(caDir, 'ca.pem'), certificate.cert);
    receiver = await HttpsReceiver.start(certificate);
    const databaseUrl = await createDatabase(databaseName);
    const clusterStart = Date.now();
    const [started] = await Promise.all([RabbitCluster.start(3), migrateDatabase(databaseUrl)]);
    cluster = started;
    process.stdout.write(`[cluster] 3 nodes up and joined in ${((Date.now() - clusterStart) / 1000).toFixed(0)} s\n`);
    dataSource = createDataSource(databaseUrl, 4);
    await dataSource.initialize();
    const [n1, n2, n3] = cluster.nodes;
    // The api's connections start on node 1, the dispatcher's on node 2, the gateway's on node 3.
    api = await startApp('api', 'api', childEnv(databaseUrl, cluster.urlList([n1, n2, n3]), {}));
    dispatcher = await startApp('dispatcher', 'dispatcher', childEnv(databaseUrl, cluster.urlList([n2, n3, n1]), {}));
    gateway = new BrokerConnection({
      url: [n3, n1, n2].map((node) => cluster.url(node)),
      name: 'cluster-test-gateway',
      setup: async (model: ChannelModel) => {
        const channel = await model.createConfirmChannel();
        channel.on('error', () => undefined);
        channel.on('close', () => {
          if (gatewayChannel === channel) gatewayChannel = null;
        });
        gatewayChannel = channel;
      },
      onDisconnect: () => {
        gatewayChannel = null;
      },
    });
    gateway.start();
    await gateway.waitUntilConnected(30_000);
  }, START_DEADLINE_MS * 2);

  afterAll(async () => {
    await gateway?.stop().catch(() => undefined);
    for (const child of processes) await child.kill('SIGKILL');
    await receiver?.close();
    await dataSource?.destroy().catch(() => undefined);
    await cluster?.stop();
    await dropDatabase(databaseName).catch(() => undefined);
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  }, 120_000);

  it('loses no event and no point while the events leader and then the ingestion leader are SIGKILLed and brought back', async () => {
    const { secretsKey } = loadConfig();
    const endpoints = new WebhookEndpointsService(dataSource, { secretsKey, allowPrivateTargets: true });
    // Account A has two endpoints, account B one; the telemetry device belongs to a third account (no alarms, no events).
    const accounts: Array<{ id: AccountId; paths: string[] }> = [];
    const arrivals: Array<{ path: string; eventId: string; at: number }> = [];
    for (const [a, count] of [2, 1].entries()) {
      const id = await createAccount(dataSource, `Cluster ${a}`);
      const paths: string[] = [];
      for (let e = 0; e < count; e++) {
        const path = `/cluster/${a}/${e}`;
        receiver.script(path, [], { status: 200, before: async (request) => void arrivals.push({ path, eventId: String(request.headers['x-service-event-id']), at: Date.now() }) });
        await endpoints.create(id, { url: receiver.url(path, '127.0.0.1'), events: ['alarm.created'] });
        paths.push(path);
      }
      accounts.push({ id, paths });
    }
    const deviceAccount = await createAccount(dataSource, 'Cluster telemetry');
    const device = (await registerDevice(dataSource, deviceAccount)).id;
    const firstPointAt = Date.now() - 24 * 3600_000;
    await backdateLifecycle(dataSource, device, new Date(firstPointAt - 3600_000));

    // The streams: committed events, gateway telemetry (retried until confirmed), ingestion progress.
    let streaming = true;
    const committed: Array<{ id: string; accountId: AccountId; at: number }> = [];
    const eventStream = (async () => {
      for (let n = 0; streaming; n++) {
        const account = accounts[n % accounts.length];
        try {
          const envelope = await dataSource.transaction((manager) =>
            writeOutboxEvent(manager, { accountId: account.id, type: 'alarm.created', aggregateType: 'alarm', aggregateId: `${account.id}:${n % 4}`, data: { n } }),
          );
          committed.push({ id: envelope.id, accountId: account.id, at: Date.now() });
        } catch (error) {
          throw new Error(`committing an outbox event failed: ${String(error)}`, { cause: error });
        }
        await sleep(EVENT_INTERVAL_MS);
      }
    })();
    const exchange = ingestTopology(prefix).exchange;
    let pointsSent = 0;
    const confirms: number[] = [];
    const gatewayStream = (async () => {
      let body: Buffer | null = null;
      let messageId = '';
      while (streaming || body) {
        if (!body) {
          const points = Array.from({ length: POINTS_PER_MESSAGE }, (_, i) => point(device, new Date(firstPointAt + (pointsSent + i) * 1000), { temperature: 4 }));
          messageId = `gw-${pointsSent}`;
          pointsSent += points.length;
          body = Buffer.from(JSON.stringify({ points }));
        }
        const channel = gatewayChannel;
        if (!channel) {
          await sleep(50);
          continue;
        }
        try {
          channel.publish(exchange, 'gateway.cluster', body, { persistent: true, contentType: 'application/json', messageId });
          await Promise.race([channel.waitForConfirms(), sleep(10_000).then(() => Promise.reject(new Error('no confirm within 10 s')))]);
          confirms.push(Date.now());
          body = null; // confirmed: the quorum has it
        } catch {
          // Lost channel, nack or no confirm: publish the same message again (stored once per (device, recorded_at)).
          if (gatewayChannel === channel) await gateway.reset();
          await sleep(50);
          continue;
        }
        await sleep(GATEWAY_INTERVAL_MS);
      }
    })();
    const stored: Array<{ at: number; count: number }> = [];
    const ingestProgress = (async () => {
      let last = -1;
      while (streaming || last < pointsSent) {
        const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM telemetry_points WHERE device_id = $1', [device]);
        if (n !== last) stored.push({ at: Date.now(), count: n });
        last = n;
        await sleep(100);
      }
    })();
    const failovers: Failover[] = [];

    /** Polls both apps' readiness from the kill on; returns how long each was not ready. */
    async function readinessAfterKill(): Promise<Record<string, number>> {
      const result: Record<string, number> = {};
      await Promise.all(
        [api, dispatcher].map(async (app) => {
          let firstBad: number | null = null;
          let lastBad: number | null = null;
          const started = Date.now();
          while (Date.now() - started < OBSERVE_MS) {
            const ok = (await app.status('/health/ready')) === 200;
            if (!ok) {
              firstBad ??= Date.now();
              lastBad = Date.now();
            }
            await sleep(100);
          }
          result[app.name] = firstBad === null || lastBad === null ? 0 : lastBad - firstBad + 100;
        }),
      );
      return result;
    }

    async function killAndRestore(label: string, queue: string): Promise<void> {
      const leader: ClusterNode = await cluster.leaderOf(queue);
      const killedAt = Date.now();
      await cluster.kill(leader);
      const unreadyMs = await readinessAfterKill();
      for (const app of [api, dispatcher]) expect(app.running).toBe(true);
      const restarted = Date.now();
      await cluster.restart(leader);
      // Back as a member of every quorum queue before the next kill (else two of three could be gone).
      await until(`${leader.name} back in every quorum queue`, async () => {
        const online = await cluster.membersOnline();
        return [eventTopology(prefix).dispatcherQueue, ingestTopology(prefix).queue].every((name) => online.get(name) === 3);
      }, 120_000);
      const rejoinMs = Date.now() - restarted;
      const window = killedAt + OBSERVE_MS;
      const latencies = committed
        .filter((c) => c.at >= killedAt - 2000 && c.at <= window)
        .map((c) => (arrivals.find((a) => a.eventId === c.id)?.at ?? Date.now()) - c.at);
      failovers.push({
        label,
        node: leader.name,
        killedAt,
        deliveryPauseMs: longestGap(arrivals.map((a) => a.at), killedAt, window),
        ingestPauseMs: longestGap(stored.map((s) => s.at), killedAt, window),
        confirmPauseMs: longestGap(confirms, killedAt, window),
        worstEventLatencyMs: Math.max(0, ...latencies),
        unreadyMs,
        rejoinMs,
      });
    }

    try {
      await sleep(4000); // the streams settle
      await until('the first deliveries and points', () => arrivals.length > 0 && stored.some((s) => s.count > 0), 60_000);
      await killAndRestore('events queue leader', eventTopology(prefix).dispatcherQueue);
      await sleep(3000);
      await killAndRestore('ingestion queue leader', ingestTopology(prefix).queue);
      await sleep(2000);
    } finally {
      streaming = false;
      await Promise.all([eventStream, gatewayStream]);
    }
    await until(`all ${pointsSent} points stored`, () => stored.at(-1)?.count === pointsSent);
    await ingestProgress;

    // Every committed event at every endpoint of its account.
    const expected = committed.flatMap((c) => accounts.find((a) => a.id === c.accountId)!.paths.map((path) => `${c.id} ${path}`));
    const missing = (): string[] => {
      const seen = new Set(arrivals.map((a) => `${a.eventId} ${a.path}`));
      return expected.filter((key) => !seen.has(key));
    };
    await until(`all ${expected.length} (event, endpoint) deliveries`, () => missing().length === 0);
    await sleep(1000); // a late repeat would show now

    for (const f of failovers) {
      process.stdout.write(
        `[cluster] ${f.label} (${f.node}) killed: webhook deliveries paused ${(f.deliveryPauseMs / 1000).toFixed(1)} s ` +
          `(worst commit-to-receiver ${(f.worstEventLatencyMs / 1000).toFixed(1)} s), telemetry stored paused ${(f.ingestPauseMs / 1000).toFixed(1)} s, ` +
          `gateway confirms paused ${(f.confirmPauseMs / 1000).toFixed(1)} s; not ready: ${Object.entries(f.unreadyMs).map(([app, ms]) => `${app} ${(ms / 1000).toFixed(1)} s`).join(', ')}; ` +
          `node back in every queue ${(f.rejoinMs / 1000).toFixed(0)} s after its restart\n`,
      );
    }
    // A long pause: what the apps logged (reconnects, confirm timeouts, failed passes) says where it was.
    if (failovers.some((f) => f.deliveryPauseMs > 5000 || f.ingestPauseMs > 5000)) process.stdout.write(`${api.output()}\n${dispatcher.output()}\n`);
    const repeats = arrivals.length - new Set(arrivals.map((a) => `${a.eventId} ${a.path}`)).size;
    process.stdout.write(`[cluster] ${committed.length} events, ${expected.length} (event, endpoint) deliveries (${repeats} repeated), ${pointsSent} points\n`);

    const committedIds = new Set(committed.map((c) => c.id));
    expect(missing()).toEqual([]);
    expect(arrivals.filter((a) => !committedIds.has(a.eventId))).toEqual([]); // a repeat carries the same event id
    const [{ rows, distinct }] = await dataSource.query(
      `SELECT count(*)::int AS rows, count(DISTINCT (event_id, endpoint_id))::int AS distinct FROM webhook_deliveries WHERE event_id = ANY($1)`,
      [[...committedIds]],
    );
    expect({ rows, distinct }).toEqual({ rows: expected.length, distinct: expected.length });
    const [{ total, unique }] = await dataSource.query(
      'SELECT count(*)::int AS total, count(DISTINCT recorded_at)::int AS unique FROM telemetry_points WHERE device_id = $1',
      [device],
    );
    expect({ total, unique }).toEqual({ total: pointsSent, unique: pointsSent });
    // The same processes throughout: they reconnected, nobody restarted them.
    for (const app of [api, dispatcher]) expect(app.running).toBe(true);
    expect(failovers).toHaveLength(2);
    for (const f of failovers) {
      for (const ms of Object.values(f.unreadyMs)) expect(ms).toBeLessThan(RECONNECT_BOUND_MS);
      expect(f.deliveryPauseMs).toBeLessThan(PAUSE_BOUND_MS);
      expect(f.ingestPauseMs).toBeLessThan(PAUSE_BOUND_MS);
    }
  }, 600_000);

  it('keeps a message the quorum confirmed when its leader is killed right after the confirm', async () => {
    const queue = `${prefix}.confirm-probe`;
    const [first] = cluster.running;
    const declaring = await connect(cluster.url(first));
    await (await declaring.createChannel()).assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await declaring.close();
    const leader = await cluster.leaderOf(queue);
    const [publisherNode, readerNode] = cluster.running.filter((node) => node !== leader);
    const publisher = await connect(cluster.url(publisherNode));
    const channel = await publisher.createConfirmChannel();
    const count = 200;
    for (let i = 0; i < count; i++) channel.publish('', queue, Buffer.from(String(i)), { persistent: true, messageId: String(i) });
    await channel.waitForConfirms();
    // No await between the last confirm and the kill: nothing has time to reach the leader's disk later.
    await cluster.kill(leader);
    await publisher.close().catch(() => undefined);
    expect(readerNode).toBeDefined();
    const seen = new Set<string>();
    await until('the confirmed messages from the surviving nodes', async () => {
      // A connection per try: a basic.get while the queue elects its new leader closes the whole
      // connection (541 "nodedown"); the messages are there once a survivor leads.
      const reader = await connect(cluster.url(readerNode));
      reader.on('error', () => undefined);
      try {
        const channel = await reader.createChannel();
        for (let message = await channel.get(queue, { noAck: true }); message; message = await channel.get(queue, { noAck: true })) {
          seen.add(String(message.properties.messageId));
        }
      } finally {
        await reader.close().catch(() => undefined);
      }
      return seen.size === count;
    }, 60_000);
    expect(seen.size).toBe(count);
  }, 180_000);
});
