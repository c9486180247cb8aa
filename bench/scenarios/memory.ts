import type { ResultRow } from '../harness/report';
import type { BenchContext } from './scenario';

const LIMIT_MB = 250;
const TARGET = `≤ ${LIMIT_MB} MB`;

/** Peak RSS (VmHWM) of each app across the whole run; the baseline server's for reference. Run last. */
export function memoryRows(ctx: BenchContext): ResultRow[] {
  const baselineMb = ctx.baseline.process.peakRssMb();
  const row = (name: string, mb: number): ResultRow => ({
    scenario: 'memory',
    metric: `${name} peak RSS (VmHWM) across the run`,
    unit: 'MB',
    project: mb,
    baseline: baselineMb,
    ratio: null,
    target: TARGET,
    pass: mb <= LIMIT_MB,
    status: 'measured',
  });
  const rows = [row('api', ctx.api.process.peakRssMb())];
  if (ctx.dispatcher) rows.push(row('dispatcher', ctx.dispatcher.peakRssMb()));
  else rows.push({ scenario: 'memory', metric: 'dispatcher peak RSS', unit: 'MB', project: null, baseline: null, ratio: null, target: TARGET, pass: null, status: 'skipped', note: 'feature not landed: no dist/apps/dispatcher/src/main.js' });
  return rows;
}
