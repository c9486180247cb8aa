import { alternate, cpuPerUnit, medianOf } from '../harness/alternate';
import { getJson, timed } from '../harness/load';
import type { ResultRow } from '../harness/report';
import { TELEMETRY_MAX_PAGE_SIZE } from '../../apps/api/src/telemetry/dto/telemetry-query.dto';
import { assertSameBody } from './compare';
import type { AppUnderTest, BenchContext, Scenario } from './scenario';
import { telemetryUrl, type Page } from './telemetry-pages';

const TARGET = 'time ratio ≤ 1.3';

/** 30 days downsampled to one-hour buckets (720 buckets, one page), requested one after another. */
export const telemetryBucket: Scenario = {
  name: 'telemetry-bucket',
  target: TARGET,
  unavailable: () => null,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const url = (app: AppUnderTest): string => telemetryUrl(ctx, app, { bucket: '1h', limit: String(TELEMETRY_MAX_PAGE_SIZE) });
    const project = await getJson<Page>(url(ctx.api), ctx.tenant.token);
    assertSameBody('telemetry-bucket', project, await getJson<Page>(url(ctx.baseline), ctx.tenant.token));
    if (project.data.length !== 720 || project.links.next !== null) throw new Error(`expected one page of 720 buckets, got ${project.data.length}`);

    const requests = ctx.options.quick ? 10 : 20;
    const side = (app: AppUnderTest) => async () => {
      const run = await timed(app.process, async () => {
        for (let i = 0; i < requests; i++) await getJson<Page>(url(app), ctx.tenant.token);
        return requests;
      });
      return { value: run.ms / requests, cpuSeconds: run.cpuSeconds, units: run.units };
    };
    await side(ctx.api)();
    await side(ctx.baseline)();
    const runs = await alternate(ctx.options.rounds, side(ctx.api), side(ctx.baseline), ctx.log, (r) =>
      `${r.value.toFixed(1)} ms/request, ${((r.cpuSeconds / r.units) * 1000).toFixed(2)} CPU-ms/req`,
    );
    const p = medianOf(runs.project);
    const b = medianOf(runs.baseline);
    return [
      {
        scenario: 'telemetry-bucket',
        metric: '30 days at bucket=1h (720 buckets), per request',
        unit: 'ms',
        project: p,
        baseline: b,
        ratio: p / b,
        target: TARGET,
        pass: p / b <= 1.3,
        status: 'measured',
        cpu: { per: 'request', project: cpuPerUnit(runs.project), baseline: cpuPerUnit(runs.baseline) },
        rounds: ctx.options.rounds,
        samples: { project: runs.project.map((r) => r.value), baseline: runs.baseline.map((r) => r.value) },
      },
    ];
  },
};
