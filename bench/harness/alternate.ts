import { median } from './stats';

/** One side's run in one round: its figure, the CPU its server(s) spent and the work done. */
export interface SideRun {
  value: number;
  cpuSeconds: number;
  /** Requests, points or deliveries done in the run (CPU per unit = cpuSeconds / units). */
  units: number;
  extra?: Record<string, number>;
}

export interface Alternated {
  project: SideRun[];
  baseline: SideRun[];
}

/**
 * Runs project and baseline alternately, swapping which goes first every round, so that drift
 * on a noisy machine (other tenants, thermal, PostgreSQL autovacuum) hits both sides alike.
 */
export async function alternate(
  rounds: number,
  project: (round: number) => Promise<SideRun>,
  baseline: (round: number) => Promise<SideRun>,
  log: (message: string) => void,
  describe: (run: SideRun) => string,
): Promise<Alternated> {
  const result: Alternated = { project: [], baseline: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['project', 'baseline'] as const) : (['baseline', 'project'] as const);
    for (const side of order) {
      const run = await (side === 'project' ? project(round) : baseline(round));
      result[side].push(run);
      log(`  round ${round + 1}/${rounds} ${side.padEnd(8)} ${describe(run)}`);
    }
  }
  return result;
}

export const medianOf = (runs: readonly SideRun[], pick: (run: SideRun) => number = (r) => r.value): number => median(runs.map(pick));

/** Median CPU seconds per unit of work over the rounds. */
export const cpuPerUnit = (runs: readonly SideRun[]): number => median(runs.map((r) => (r.units > 0 ? r.cpuSeconds / r.units : Number.NaN)));
