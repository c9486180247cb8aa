import { median } from './stats';
import { cpuBetween, servicesCpuSnapshot } from './proc-stats';
import type { Alternated, SideRun } from './alternate';
import type { ResultRow } from './report';

/**
 * Runs one side and adds the CPU PostgreSQL and RabbitMQ spent meanwhile, in seconds:
 * `extra.servicesCpu` (PostgreSQL: the bench database's backends and the shared background
 * writers, see `servicesCpuSnapshot`) and `extra.brokerCpu` (RabbitMQ, machine-wide).
 */
export function withServicesCpu<A extends unknown[]>(side: (...args: A) => Promise<SideRun>): (...args: A) => Promise<SideRun> {
  return async (...args: A) => {
    const before = servicesCpuSnapshot();
    const run = await side(...args);
    const after = servicesCpuSnapshot();
    if (before === null || after === null) return run;
    return {
      ...run,
      extra: { ...run.extra, servicesCpu: cpuBetween(before.postgres, after.postgres), brokerCpu: cpuBetween(before.rabbitmq, after.rabbitmq) },
    };
  };
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

/**
 * PostgreSQL's CPU per unit of work on each side (median over the rounds): the part of the machine
 * the project's durability costs, which the CPU columns of the app rows (its own processes only)
 * leave out. Only the bench database's backends and the shared background writers count, so
 * other databases on a shared machine do not.
 */
export function servicesCpuRow(scenario: string, per: string, runs: Alternated): ResultRow | null {
  return infoRow(scenario, 'PostgreSQL CPU (the bench database\'s backends + background writers)', per, runs, 'servicesCpu');
}

/** RabbitMQ's CPU per unit of work (`beam.smp`, machine-wide: it includes other users of the broker). */
export function brokerCpuRow(scenario: string, per: string, runs: Alternated): ResultRow | null {
  return infoRow(scenario, 'RabbitMQ CPU (beam.smp, machine-wide)', per, runs, 'brokerCpu');
}
