import { shipmentDetailAdapter } from '../adapters/shipments.adapter';
import { cpuPerUnit, medianOf } from '../harness/alternate';
import type { ResultRow } from '../harness/report';
import type { BenchContext, Scenario } from './scenario';
import { CONNECTIONS, underLoad } from './under-load';

const TARGET = 'ratio ≥ 0.7';
const DETAIL_ROUTE = /^\/api\/public\/v1\/shipments\/\{[^}]+\}\/?$/;

/** GET /shipments/{id}/ under load, against the baseline doing the same detail read. */
export const apiDetail: Scenario = {
  name: 'api-detail',
  target: TARGET,
  unavailable(ctx: BenchContext): string | null {
    if (![...ctx.openApiPaths].some((path) => DETAIL_ROUTE.test(path))) return 'feature not landed: no GET /shipments/{id}/ in the served OpenAPI document';
    if (!shipmentDetailAdapter()) return 'feature landed, adapter not wired: bench/adapters/shipments.adapter.ts';
    return null;
  },
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const adapter = shipmentDetailAdapter();
    if (!adapter) throw new Error('shipment detail adapter not wired');
    const shipmentId = await adapter.seed(ctx.db, ctx.tenant.accountId, ctx.devices.slice(200, 203));
    const runs = await underLoad(ctx, 'api-detail', `/shipments/${shipmentId}/`);
    const p = medianOf(runs.project);
    const b = medianOf(runs.baseline);
    return [
      {
        scenario: 'api-detail',
        metric: `GET /shipments/{id}/, throughput, ${CONNECTIONS} connections`,
        unit: 'req/s',
        project: p,
        baseline: b,
        ratio: p / b,
        target: TARGET,
        pass: p / b >= 0.7,
        status: 'measured',
        cpu: { per: 'request', project: cpuPerUnit(runs.project), baseline: cpuPerUnit(runs.baseline) },
        rounds: ctx.options.rounds,
        samples: { project: runs.project.map((r) => r.value), baseline: runs.baseline.map((r) => r.value) },
      },
    ];
  },
};
