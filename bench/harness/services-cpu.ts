import type { DataSource } from 'typeorm';
import { median } from './stats';
import { clusterAttributed, cpuBetween, cpuSecondsByPid, cpuSecondsSince, servicesCpuSnapshot } from './proc-stats';
import type { Alternated, SideRun } from './alternate';
import type { ResultRow } from './report';

/**
 * Runs one side and adds the CPU PostgreSQL and RabbitMQ spent meanwhile, in seconds:
 * `extra.servicesCpu` (PostgreSQL: the bench database's backends and the shared background
 * writers, see `servicesCpuSnapshot`) and `extra.brokerCpu` (RabbitMQ, machine-wide). With `db`,
 * also the CPU of the PostgreSQL backends connected to its database (`extra.databaseCpu`, read
 * from pg_stat_activity's pids: the bench database's own share, without the background writers).
 */
export function withServicesCpu<A extends unknown[]>(side: (...args: A) => Promise<SideRun>, db?: DataSource): (...args: A) => Promise<SideRun> {
  return async (...args: A) => {
    const backends = db ? await databaseBackendsCpu(db) : null;
    const before = servicesCpuSnapshot();
    const run = await side(...args);
    const after = servicesCpuSnapshot();
    const extra: Record<string, number> = { ...run.extra };
    if (before !== null && after !== null) {
      extra.servicesCpu = cpuBetween(before.postgres, after.postgres);
      extra.brokerCpu = cpuBetween(before.rabbitmq, after.rabbitmq);
    }
    if (db && backends) extra.databaseCpu = cpuSecondsSince(backends, await databaseBackendsCpu(db));
    return { ...run, extra };
  };
}

/** CPU seconds so far of each PostgreSQL backend of `db`'s database (client connections and autovacuum workers). */
async function databaseBackendsCpu(db: DataSource): Promise<Map<number, number>> {
  const rows = (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')) as Array<{ pid: number }>;
  return cpuSecondsByPid(rows.map((r) => r.pid));
}

/** Median over the rounds of `extra[key]` per unit of work, or null when no round has it. */
export function extraPerUnit(list: readonly SideRun[], key: string): number | null {
  const values = list.filter((r) => r.extra?.[key] !== undefined && r.units > 0).map((r) => (r.extra?.[key] ?? 0) / r.units);
  return values.length > 0 ? median(values) : null;
}

function infoRow(scenario: string, metric: string, per: string, runs: Alternated, key: string): ResultRow | null {
  const project = extraPerUnit(runs.project, key);
  const baseline = extraPerUnit(runs.baseline, key);
  if (project === null && baseline === null) return null;
  return {
    scenario,
    metric,
    unit: '',
    project: null,
    baseline: null,
    ratio: null,
    target: 'reported',
    pass: null,
    status: 'info',
    cpu: { per, project, baseline },
    rounds: runs.project.length,
  };
}

/** One process's CPU per unit of work (`extra[key]` of each round, e.g. the dispatcher's alone of the project's sum). */
export function processCpuRow(scenario: string, label: string, per: string, runs: Alternated, key: string): ResultRow | null {
  return infoRow(scenario, label, per, runs, key);
}

/**
 * PostgreSQL's CPU per unit of work on each side (median over the rounds): the part of the machine
 * the project's durability costs, which the CPU columns of the app rows (its own processes only)
 * leave out. `servicesCpu`: only the bench database's backends and the shared background writers
 * count, so other databases on a shared machine do not; `databaseCpu` (sides run with a `db`):
 * the backends connected to the bench database alone.
 */
export function servicesCpuRow(scenario: string, per: string, runs: Alternated, key: 'servicesCpu' | 'databaseCpu' = 'servicesCpu'): ResultRow | null {
  const metric =
    key === 'databaseCpu'
      ? "PostgreSQL CPU of the bench database's backends"
      : clusterAttributed()
        ? "PostgreSQL CPU (the bench's own cluster: every backend, background writers, autovacuum)"
        : "PostgreSQL CPU (the bench database's backends + background writers)";
  return infoRow(scenario, metric, per, runs, key);
}

/** RabbitMQ's CPU per unit of work (`beam.smp`, machine-wide: it includes other users of the broker). */
export function brokerCpuRow(scenario: string, per: string, runs: Alternated): ResultRow | null {
  return infoRow(scenario, 'RabbitMQ CPU (beam.smp, machine-wide)', per, runs, 'brokerCpu');
}
