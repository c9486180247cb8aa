import type { AccountId } from '@app/vocabulary';
import { builtApp, type AppProcess } from '../support/app-process';
import { createAccount } from '../support/fixtures';
import { waitFor } from '../support/wait';
import { HostileNeighbours } from './support/hostile-neighbours';

/**
 * Tenant isolation of webhook deliveries, against the built dispatcher as a child process: one
 * tenant's endpoints whose DNS never answers, and another's whose receiver accepts TLS and never
 * answers, must not delay a third tenant's deliveries nor count failures against its endpoint.
 */

builtApp('dispatcher');

const prefix = `${process.env.AMQP_PREFIX as string}_isolation`;
const GOOD_HOST = 'hooks.tenant-b.test';
const STUCK_HOSTS = Array.from({ length: 20 }, (_, i) => `hooks-${i}.tenant-a.test`);
const CONCURRENCY = 16;
/** What a delivery to a healthy receiver may take on a loaded test machine; the stuck ones take the DNS or attempt timeout. */
const NORMAL_LATENCY_MS = 2500;

interface AttemptRow {
  outcome: string;
  error: string | null;
}

describe('webhook delivery isolation between tenants (built dispatcher)', () => {
  const neighbours = new HostileNeighbours(prefix, { goodHost: GOOD_HOST, deadHosts: STUCK_HOSTS });
  let dispatcher: AppProcess | null = null;

  beforeAll(() => neighbours.setUp());
  afterAll(() => neighbours.tearDown());

  it("delivers tenant B's events at their normal latency while tenant A's DNS never answers and tenant C's receivers never respond", async () => {
    const { dataSource, service, receiver, silentTls, dns } = neighbours;
    const endpoints = (accountId: AccountId, urls: string[]) => neighbours.endpoints(accountId, urls);
    const tenantA = await createAccount(dataSource, 'Stuck DNS Co');
    const tenantB = await createAccount(dataSource, 'Healthy Co');
    const tenantC = await createAccount(dataSource, 'Silent Receiver Co');
    const port = receiver.port;
    const silentPort = silentTls.port;
    const stuckDns = await endpoints(tenantA, STUCK_HOSTS.map((host) => `https://${host}:${port}/a`));
    const silent = await endpoints(tenantC, STUCK_HOSTS.map((_, i) => `https://127.0.0.1:${silentPort}/c/${i}`));
    const [healthy] = await endpoints(tenantB, [`https://${GOOD_HOST}:${port}/b`]);

    dispatcher = await neighbours.startDispatcher({ WEBHOOK_CONCURRENCY: String(CONCURRENCY) });
    try {
      // More work from A and C than the dispatcher has slots.
      for (const hook of [...stuckDns, ...silent]) {
        for (let n = 0; n < 3; n++) await service.sendTestEvent(hook.account_id, hook.id);
      }
      await waitFor('tenant A to be waiting on DNS', () => STUCK_HOSTS.filter((host) => dns.queriesFor(host) > 0).length >= 2, 20_000);
      await waitFor("tenant C's receivers to hold connections", () => silentTls.open >= 2, 20_000);

      const latencies: number[] = [];
      for (let n = 0; n < 5; n++) {
        const started = Date.now();
        const queued = await service.sendTestEvent(tenantB, healthy.id);
        await waitFor(`delivery ${n + 1} to tenant B`, () => receiver.received('/b').some((r) => r.headers['x-service-event-id'] === queued.event_id), 15_000);
        latencies.push(Date.now() - started);
      }
      for (const latency of latencies) expect(latency).toBeLessThan(NORMAL_LATENCY_MS);

      // Meanwhile A and C are stuck: nothing of theirs succeeded.
      const [{ n: delivered }] = await dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = ANY($1) AND status = 'succeeded'`,
        [[tenantA, tenantC]],
      );
      expect(delivered).toBe(0);
      expect(receiver.received('/a')).toHaveLength(0);
      // One tenant holds at most its share of the slots (a quarter of WEBHOOK_CONCURRENCY by default).
      expect(silentTls.peak).toBeLessThanOrEqual(CONCURRENCY / 4);

      // B's endpoint never failed.
      const b = await service.get(tenantB, healthy.id);
      expect(b).toMatchObject({ status: 'enabled', consecutive_failures: 0 });
      // Outcomes are logged in a batch just after the receiver answered: the last one may be a moment behind its receipt.
      let attempts: AttemptRow[] = [];
      await waitFor("tenant B's attempts to be logged", async () => {
        attempts = await dataSource.query('SELECT outcome, error FROM webhook_attempts WHERE endpoint_id = $1', [healthy.id]);
        return attempts.length >= 5;
      }, 5_000);
      expect(attempts.length).toBeGreaterThanOrEqual(5);
      expect(attempts.filter((a) => a.outcome !== 'succeeded')).toEqual([]);

      // A's failures are A's own: DNS, reported without resolver internals.
      const failedA: AttemptRow[] = await waitFor('a failed attempt of tenant A', async () => {
        const rows: AttemptRow[] = await dataSource.query(`SELECT outcome, error FROM webhook_attempts WHERE account_id = $1`, [tenantA]);
        return rows.length > 0 ? rows : undefined;
      }, 20_000);
      expect(failedA.every((a) => a.outcome === 'retry' && /DNS/.test(a.error ?? ''))).toBe(true);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${dispatcher.output()}`, { cause: error });
    } finally {
      await dispatcher.kill('SIGKILL');
      dispatcher = null;
    }
  });
});
