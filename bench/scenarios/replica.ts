import { createDataSource, migrateDatabase } from '@app/database';
import { startApi } from '../harness/apps';
import { cannon } from '../harness/load';
import { cpuSecondsByPid, cpuSecondsSince } from '../harness/proc-stats';
import { startReplicatedPostgres } from '../harness/replicated-postgres';
import type { ResultRow } from '../harness/report';
import { median } from '../harness/stats';
import { seedDevices } from '../seed/devices';
import { createTenant, fetchToken } from '../seed/tenant';
import type { AppUnderTest, BenchContext, Scenario } from './scenario';

const NAME = 'replica';
const PATH = '/devices/?limit=50';
const CONNECTIONS = 32;

interface Round {
  rps: number;
  requests: number;
  primaryCpuMsPerRequest: number;
  replicaCpuMsPerRequest: number;
  apiCpuMsPerRequest: number;
}

/**
 * Runs in every bench run (issue 26: every scenario, every run): a primary and a streaming replica of its own (initdb +
 * `pg_basebackup -R`, bench/harness/replicated-postgres.ts), seeded with one tenant's 500 devices,
 * and two apis on it — one with DATABASE_REPLICA_URL (the list reads go to the replica), one
 * without (every read on the primary). The same list under the same load, alternating rounds:
 * throughput, and the CPU the primary's server processes spend per request.
 */
export const replica: Scenario = {
  name: NAME,
  target: 'informational: primary CPU per read with reads split vs all on the primary',
  unavailable: () => null,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const cluster = await startReplicatedPostgres();
    const apps: AppUnderTest[] = [];
    try {
      await migrateDatabase(cluster.primaryUrl());
      const db = await createDataSource(cluster.primaryUrl(), 2).initialize();
      const tenant = await createTenant(db, 'Replica bench');
      await seedDevices(db, tenant.accountId, 500, new Date(Date.now() - 86_400_000), 'RPL');
      // As autovacuum would have by now: visibility and hint information reaches the replica only
      // through WAL (a standby cannot write it), so unvacuumed fresh rows would cost it more per read.
      await db.query('VACUUM (FREEZE, ANALYZE)');
      await db.destroy();
      await cluster.waitForReplay();
      const env = {
        ...ctx.appEnv,
        DATABASE_URL: cluster.primaryUrl(),
        DATABASE_DIRECT_URL: cluster.primaryUrl(),
        OUTBOX_RELAY: 'off',
        INGEST_CONSUMER: 'off',
      };
      const split = await startApi(ctx.root, { ...env, DATABASE_REPLICA_URL: cluster.replicaUrl(), DATABASE_REPLICA_MAX_LAG_MS: '5000' });
      apps.push(split);
      const single = await startApi(ctx.root, env);
      apps.push(single);
      const token = await fetchToken(split.base, tenant);
      const headers = { authorization: `Bearer ${token}` };
      // The split api reports the replica in use before anything is measured.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const ready = (await (await fetch(`${split.opsOrigin}/health/ready`)).json()) as { checks?: Record<string, string> };
        if (ready.checks?.['database-replica'] === 'ok') break;
        if (Date.now() > deadline) throw new Error(`the replica is not in use: ${JSON.stringify(ready)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const measure = async (app: AppUnderTest): Promise<Round> => {
        const primaryBefore = cpuSecondsByPid(cluster.primaryPids());
        const replicaBefore = cpuSecondsByPid(cluster.replicaPids());
        const r = await cannon(app.process, `${app.base}${PATH}`, headers, CONNECTIONS, ctx.options.loadSeconds);
        const primaryCpu = cpuSecondsSince(primaryBefore, cpuSecondsByPid(cluster.primaryPids()));
        const replicaCpu = cpuSecondsSince(replicaBefore, cpuSecondsByPid(cluster.replicaPids()));
        return {
          rps: r.requestsPerSecond,
          requests: r.requests,
          primaryCpuMsPerRequest: (primaryCpu / r.requests) * 1000,
          replicaCpuMsPerRequest: (replicaCpu / r.requests) * 1000,
          apiCpuMsPerRequest: (r.cpuSeconds / r.requests) * 1000,
        };
      };
      const warm = Math.max(1, Math.round(ctx.options.loadSeconds / 2));
      for (const app of [split, single]) await cannon(app.process, `${app.base}${PATH}`, headers, CONNECTIONS, warm);
      const rounds = { split: [] as Round[], single: [] as Round[] };
      for (let i = 0; i < ctx.options.rounds; i++) {
        // Alternate which side goes first, so that drift in the machine's load hits both alike.
        const order = i % 2 === 0 ? (['split', 'single'] as const) : (['single', 'split'] as const);
        for (const side of order) {
          const round = await measure(side === 'split' ? split : single);
          rounds[side].push(round);
          ctx.log(`${NAME} ${side}: ${round.rps.toFixed(0)} req/s, primary ${round.primaryCpuMsPerRequest.toFixed(3)} CPU-ms/req, replica ${round.replicaCpuMsPerRequest.toFixed(3)}, api ${round.apiCpuMsPerRequest.toFixed(3)}`);
        }
      }
      const row = (metric: string, unit: string, pick: (r: Round) => number, ratio = true): ResultRow => {
        const project = median(rounds.split.map(pick));
        const baseline = median(rounds.single.map(pick));
        return {
          scenario: NAME,
          metric,
          unit,
          project,
          baseline,
          ratio: ratio ? project / baseline : null,
          target: 'informational (project: reads split to the replica; baseline: all on the primary)',
          pass: null,
          status: 'info',
          rounds: ctx.options.rounds,
          samples: { project: rounds.split.map(pick), baseline: rounds.single.map(pick) },
        };
      };
      return [
        row(`GET ${PATH}, throughput, ${CONNECTIONS} connections`, 'req/s', (r) => r.rps),
        row('primary PostgreSQL CPU per read request', 'CPU-ms/req', (r) => r.primaryCpuMsPerRequest),
        row('replica PostgreSQL CPU per read request', 'CPU-ms/req', (r) => r.replicaCpuMsPerRequest, false),
        row('api CPU per read request', 'CPU-ms/req', (r) => r.apiCpuMsPerRequest),
      ];
    } finally {
      for (const app of apps) await app.process.stop();
      cluster.destroy();
    }
  },
};
