import { median } from './stats';
import { servicesCpuSeconds } from './proc-stats';
import type { Alternated, SideRun } from './alternate';
import type { ResultRow } from './report';

/** Runs one side and adds the CPU PostgreSQL and RabbitMQ spent meanwhile (`extra.servicesCpu`, seconds). */
export function withServicesCpu<A extends unknown[]>(side: (...args: A) => Promise<SideRun>): (...args: A) => Promise<SideRun> {
  return async (...args: A) => {
    const before = servicesCpuSeconds();
    const run = await side(...args);
    const after = servicesCpuSeconds();
    return before === null || after === null ? run : { ...run, extra: { ...run.extra, servicesCpu: after - before } };
  };
}

/**
 * PostgreSQL's and RabbitMQ's CPU per unit of work on each side (median over the rounds): the
 * part of the machine the project's durability costs, which the CPU columns of the app rows
 * (its own processes only) leave out.
 */
export function servicesCpuRow(scenario: string, per: string, runs: Alternated): ResultRow | null {
  const perUnit = (list: readonly SideRun[]): number | null => {
    const values = list.filter((r) => r.extra?.servicesCpu !== undefined && r.units > 0).map((r) => (r.extra?.servicesCpu ?? 0) / r.units);
    return values.length > 0 ? median(values) : null;
  };
  const project = perUnit(runs.project);
  const baseline = perUnit(runs.baseline);
  if (project === null && baseline === null) return null;
  return {
    scenario,
    metric: 'PostgreSQL + RabbitMQ CPU (outside the app processes)',
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
