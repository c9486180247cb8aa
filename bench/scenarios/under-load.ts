import { alternate, type Alternated } from '../harness/alternate';
import { cannon, getJson } from '../harness/load';
import { withServicesCpu } from '../harness/services-cpu';
import { assertSameBody } from './compare';
import type { AppUnderTest, BenchContext } from './scenario';

export const CONNECTIONS = 32;

/**
 * The same GET against the api and the baseline under closed-loop load, alternating rounds,
 * after checking that both return the same records and warming both up.
 */
export async function underLoad(ctx: BenchContext, name: string, path: string, check?: (body: unknown) => void): Promise<Alternated> {
  const headers = { authorization: `Bearer ${ctx.tenant.token}` };
  const project = await getJson<unknown>(`${ctx.api.base}${path}`, ctx.tenant.token);
  check?.(project);
  assertSameBody(name, project, await getJson<unknown>(`${ctx.baseline.base}${path}`, ctx.tenant.token));

  const warm = Math.max(1, Math.round(ctx.options.loadSeconds / 2));
  await cannon(ctx.api.process, `${ctx.api.base}${path}`, headers, CONNECTIONS, warm);
  await cannon(ctx.baseline.process, `${ctx.baseline.base}${path}`, headers, CONNECTIONS, warm);

  const side = (app: AppUnderTest) => withServicesCpu(async () => {
    const r = await cannon(app.process, `${app.base}${path}`, headers, CONNECTIONS, ctx.options.loadSeconds);
    return { value: r.requestsPerSecond, cpuSeconds: r.cpuSeconds, units: r.requests, extra: { p50: r.p50Ms, p99: r.p99Ms } };
  });
  return alternate(ctx.options.rounds, side(ctx.api), side(ctx.baseline), ctx.log, (r) =>
    `${r.value.toFixed(0)} req/s, p99 ${r.extra?.p99} ms, ${((r.cpuSeconds / r.units) * 1000).toFixed(3)} CPU-ms/req`,
  );
}
