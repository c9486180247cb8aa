import type { DataSource } from 'typeorm';
import { median } from './stats';
import { cpuSecondsByPid, servicesCpuSeconds } from './proc-stats';
import type { Alternated, SideRun } from './alternate';
import type { ResultRow } from './report';

/**
 * Runs one side and adds the CPU PostgreSQL and RabbitMQ spent meanwhile (`extra.servicesCpu`,
 * seconds). With `db`, also the CPU of the PostgreSQL backends connected to its database
 * (`extra.databaseCpu`): the bench database's own share, which other databases' load on a shared
 * server does not reach.
 */
export function withServicesCpu<A extends unknown[]>(side: (...args: A) => Promise<SideRun>, db?: DataSource): (...args: A) => Promise<SideRun> {
  return async (...args: A) => {
    const backends = db ? await databaseBackendsCpu(db) : null;
    const before = servicesCpuSeconds();
    const run = await side(...args);
    const after = servicesCpuSeconds();
    const extra: Record<string, number> = { ...run.extra };
    if (before !== null && after !== null) extra.servicesCpu = after - before;
    if (db && backends) extra.databaseCpu = cpuSince(backends, await databaseBackendsCpu(db));
    return { ...run, extra };
  };
}

/** CPU seconds so far of each PostgreSQL backend of `db`'s database (client connections and autovacuum workers). */
async function databaseBackendsCpu(db: DataSource): Promise<Map<number, number>> {
  const rows = (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')) as Array<{ pid: number }>;
  return cpuSecondsByPid(rows.map((r) => r.pid));
}

/** What the backends spent between two readings; one that started meanwhile counts whole, one that exited is lost. */
function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/**
 * PostgreSQL's and RabbitMQ's CPU per unit of work on each side (median over the rounds): the
 * part of the machine the project's durability costs, which the CPU columns of the app rows
 * (its own processes only) leave out.
 */
export function servicesCpuRow(scenario: string, per: string, runs: Alternated, key: 'servicesCpu' | 'databaseCpu' = 'servicesCpu'): ResultRow | null {
  const perUnit = (list: readonly SideRun[]): number | null => {
    const values = list.filter((r) => r.extra?.[key] !== undefined && r.units > 0).map((r) => (r.extra?.[key] ?? 0) / r.units);
    return values.length > 0 ? median(values) : null;
  };
  const project = perUnit(runs.project);
  const baseline = perUnit(runs.baseline);
  if (project === null && baseline === null) return null;
  return {
    scenario,
    metric: key === 'servicesCpu' ? 'PostgreSQL + RabbitMQ CPU (outside the app processes)' : "PostgreSQL CPU of the bench database's backends",
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
