import { cpuPerUnit, medianOf } from '../harness/alternate';
import type { ResultRow } from '../harness/report';
import { servicesCpuRow } from '../harness/services-cpu';
import type { BenchContext, Scenario } from './scenario';
import { CONNECTIONS, underLoad } from './under-load';

const PATH = '/devices/?limit=50';

/** GET /devices/?limit=50 with a real token under 32 connections: the framework's cost per request. */
export const apiList: Scenario = {
  name: 'api-list',
  target: 'ratio ≥ 0.7; p99 ≤ 1.5 × baseline',
  unavailable: () => null,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const runs = await underLoad(ctx, 'api-list', PATH, (body) => {
      const count = (body as { data: unknown[] }).data.length;
      if (count !== 50) throw new Error(`expected a full page of 50 devices, got ${count}`);
    });
    const rps = { project: medianOf(runs.project), baseline: medianOf(runs.baseline) };
    const p99 = { project: medianOf(runs.project, (r) => r.extra?.p99 ?? NaN), baseline: medianOf(runs.baseline, (r) => r.extra?.p99 ?? NaN) };
    return [
      {
        scenario: 'api-list',
        metric: `GET /devices/?limit=50, throughput, ${CONNECTIONS} connections`,
        unit: 'req/s',
        project: rps.project,
        baseline: rps.baseline,
        ratio: rps.project / rps.baseline,
        target: 'ratio ≥ 0.7',
        pass: rps.project / rps.baseline >= 0.7,
        status: 'measured',
        cpu: { per: 'request', project: cpuPerUnit(runs.project), baseline: cpuPerUnit(runs.baseline) },
        rounds: ctx.options.rounds,
        samples: { project: runs.project.map((r) => r.value), baseline: runs.baseline.map((r) => r.value) },
      },
      {
        scenario: 'api-list',
        metric: 'p99 latency',
        unit: 'ms',
        project: p99.project,
        baseline: p99.baseline,
        ratio: p99.project / p99.baseline,
        target: 'p99 ≤ 1.5 × baseline',
        pass: p99.project / p99.baseline <= 1.5,
        status: 'measured',
        rounds: ctx.options.rounds,
        samples: { project: runs.project.map((r) => r.extra?.p99 ?? NaN), baseline: runs.baseline.map((r) => r.extra?.p99 ?? NaN) },
      },
      ...[servicesCpuRow('api-list', 'request', runs)].filter((row): row is ResultRow => row !== null),
    ];
  },
};
