import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { eventMessageKey, writeOutboxEvent } from '@app/events';
import { createLogger } from '@app/observability';
import type { AccountId } from '@app/vocabulary';
import { OutboxRelay } from '../../apps/api/src/outbox/outbox-relay';
import { builtApp, waitShowingOutput } from '../support/app-process';
import { createAccount } from '../support/fixtures';
import { HostileNeighbours } from './support/hostile-neighbours';

/**
 * Fair sharing of delivery slots (issue 23, item 2), against the built dispatcher as a child
 * process with 16 slots: ten hostile accounts — receivers that accept TCP and never answer the TLS
 * handshake, receivers that finish the handshake and never answer, host names whose DNS never
 * answers — keep far more work due than there are slots, beside one good tenant. The good tenant's
 * events go the whole way (outbox commit → relay → RabbitMQ → dispatcher → receiver) at their
 * normal latency, and none of its endpoints records a failure.
 */

builtApp('dispatcher');

const prefix = `${process.env.AMQP_PREFIX as string}_fairness`;
const CONCURRENCY = 16;
const CONNECT_TIMEOUT_MS = 2000;
const GOOD_HOST = 'hooks.good-tenant.test';
const ENDPOINTS_PER_HOSTILE = 3;
const EVENTS_PER_HOSTILE = 6;
const DEAD_DNS_HOSTS = Array.from({ length: 3 * ENDPOINTS_PER_HOSTILE }, (_, i) => `hooks-${i}.dead-dns.test`);
const GOOD_EVENTS = 40;
const GOOD_EVENT_INTERVAL_MS = 150;
/** The promise under test: the good tenant's p99 commit → receipt. */
const P99_BUDGET_MS = 1000;

describe('fair sharing of delivery slots among accounts (built dispatcher)', () => {
  const neighbours = new HostileNeighbours(prefix, { goodHost: GOOD_HOST, deadHosts: DEAD_DNS_HOSTS });
  let dataSource: DataSource;
  let relay: OutboxRelay;

  beforeAll(async () => {
    await neighbours.setUp();
    dataSource = neighbours.dataSource;
    const config = loadConfig();
    relay = new OutboxRelay(dataSource, {
      listenUrl: config.databaseDirectUrl,
      amqpUrl: config.amqpUrl,
      amqpPrefix: prefix,
      pollIntervalMs: 200,
      signingKey: eventMessageKey(config.secretsKey),
      logger: createLogger('silent', 'fairness-relay'),
    });
    relay.start();
    await relay.waitUntilConnected(30_000);
  });

  afterAll(async () => {
    await relay?.stop();
    await neighbours.tearDown();
  });

  /** Commits one event (as a state change does) and returns the moment the commit returned. */
  async function commit(accountId: AccountId, n: number): Promise<{ id: string; committedAt: number }> {
    const envelope = await dataSource.transaction((manager) =>
      writeOutboxEvent(manager, { accountId, type: 'alarm.created', aggregateType: 'alarm', aggregateId: `fair-${accountId}-${n}`, data: { n } }),
    );
    return { id: envelope.id, committedAt: Date.now() };
  }

  it("keeps a good tenant's commit → receipt p99 under 1 s beside ten hostile accounts, with no failure on its endpoints", async () => {
    const { receiver, silentTcp, silentTls, dns, service } = neighbours;
    const endpoints = (accountId: AccountId, urls: string[]) => neighbours.endpoints(accountId, urls);
    const tcpPort = silentTcp.port;
    const tlsPort = silentTls.port;
    const hostile: AccountId[] = [];
    for (let i = 0; i < 10; i++) {
      const account = await createAccount(dataSource, `Hostile ${i}`);
      hostile.push(account);
      const urls = Array.from({ length: ENDPOINTS_PER_HOSTILE }, (_, e) => {
        if (i < 4) return `https://127.0.0.1:${tcpPort}/no-handshake/${i}/${e}`;
        if (i < 7) return `https://127.0.0.1:${tlsPort}/no-answer/${i}/${e}`;
        return `https://${DEAD_DNS_HOSTS[(i - 7) * ENDPOINTS_PER_HOSTILE + e]}:${receiver.port}/dead-dns`;
      });
      await endpoints(account, urls);
    }
    const good = await createAccount(dataSource, 'Good tenant');
    const goodHooks = await endpoints(good, ['/good/1', '/good/2'].map((path) => `https://${GOOD_HOST}:${receiver.port}${path}`));
    const receivedAt = new Map<string, number>();
    for (const path of ['/good/1', '/good/2']) {
      receiver.script(path, [], {
        status: 200,
        before: async (request) => {
          receivedAt.set(`${path} ${String(request.headers['x-service-event-id'])}`, Date.now());
        },
      });
    }

    // Far more hostile work than slots (10 accounts × 3 endpoints × 6 events), due again every second.
    for (const account of hostile) for (let n = 0; n < EVENTS_PER_HOSTILE; n++) await commit(account, n);

    const running = await neighbours.startDispatcher({
      LOG_LEVEL: 'warn',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    });
    const until = <T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000) =>
      waitShowingOutput([running], what, probe, timeoutMs);

    // The attack under way: connections that never finish, DNS that never answers, and every hostile
    // account known by its stalled attempts (a stall is known once one attempt has timed out: the
    // first attempt of an account nobody has seen yet may take the kept slot, once).
    await until('the hostile receivers to hold connections', () => silentTcp.open + silentTls.open >= 8);
    await until(
      'an attempt of every hostile account',
      async () => {
        const [{ n }] = await dataSource.query('SELECT count(DISTINCT account_id)::int AS n FROM webhook_attempts WHERE account_id = ANY($1)', [hostile]);
        return n === hostile.length;
      },
      45_000,
    );
    expect(DEAD_DNS_HOSTS.filter((host) => dns.queriesFor(host) > 0).length).toBeGreaterThan(0);

    const sent: Array<{ id: string; committedAt: number }> = [];
    for (let n = 0; n < GOOD_EVENTS; n++) {
      sent.push(await commit(good, n));
      await new Promise((resolve) => setTimeout(resolve, GOOD_EVENT_INTERVAL_MS));
    }
    await until('every good delivery', () => sent.every(({ id }) => receivedAt.has(`/good/1 ${id}`) && receivedAt.has(`/good/2 ${id}`)));

    const latencies = sent.flatMap(({ id, committedAt }) => ['/good/1', '/good/2'].map((path) => (receivedAt.get(`${path} ${id}`) as number) - committedAt)).sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(0.99 * latencies.length) - 1];
    process.stdout.write(`good tenant commit → receipt over ${latencies.length} deliveries: p50 ${latencies[Math.floor(latencies.length / 2)]} ms, p99 ${p99} ms, max ${latencies[latencies.length - 1]} ms\n`);
    expect(p99).toBeLessThan(P99_BUDGET_MS);

    // None of the good tenant's endpoints recorded a failure.
    for (const hook of goodHooks) expect(await service.get(good, hook.id)).toMatchObject({ status: 'enabled', consecutive_failures: 0 });
    const goodAttempts: Array<{ outcome: string }> = await dataSource.query('SELECT outcome FROM webhook_attempts WHERE account_id = $1', [good]);
    expect(goodAttempts.length).toBe(2 * GOOD_EVENTS);
    expect(goodAttempts.filter((a) => a.outcome !== 'succeeded')).toEqual([]);

    // A peer that never completes the handshake holds a slot for the connect deadline, not the 10 s attempt timeout.
    const noHandshake: Array<{ duration_ms: number; error: string }> = await until('a failed attempt against a receiver that never answers the handshake', async () => {
      const rows: Array<{ duration_ms: number; error: string }> = await dataSource.query(
        `SELECT a.duration_ms, a.error FROM webhook_attempts a JOIN webhook_endpoints e ON e.id = a.endpoint_id WHERE e.url LIKE '%/no-handshake/%'`,
      );
      return rows.length > 0 ? rows : undefined;
    });
    for (const attempt of noHandshake) {
      expect(attempt.error).toMatch(/connect/i);
      expect(attempt.duration_ms).toBeLessThan(CONNECT_TIMEOUT_MS + 1500);
    }
  });
});
