import { Client } from 'pg';
import { alternate, cpuPerUnit, medianOf } from '../harness/alternate';
import { getJson, timed } from '../harness/load';
import { ReplayServer, transferFloorRow } from '../harness/replay';
import type { ResultRow } from '../harness/report';
import { median, nowMs } from '../harness/stats';
import { TELEMETRY_MAX_PAGE_SIZE } from '../../apps/api/src/telemetry/dto/telemetry-query.dto';
import { assertSameBody } from './compare';
import type { AppUnderTest, BenchContext, Scenario } from './scenario';
import { pageBodies, readAllPages, telemetryUrl, type Page } from './telemetry-pages';

const TARGET = 'time ratio ≤ 1.3';
/** Issue 28: the full read within 2 × one raw SELECT of the same rows (the database's own floor). */
const RAW_TARGET = 'time ratio ≤ 2.0 × raw SELECT';
const RAW_LIMIT = 2.0;

/** The floor: one SELECT of every row of the window through a plain pg client, no paging. */
async function rawSelectMs(ctx: BenchContext, client: Client): Promise<{ ms: number; rows: number }> {
  const start = nowMs();
  const result = await client.query(
    `SELECT recorded_at, temperature, humidity, light, shock, battery, latitude, longitude
       FROM telemetry_points WHERE device_id = $1 AND recorded_at >= $2 AND recorded_at < $3 ORDER BY recorded_at`,
    [ctx.devices[0].deviceId, ctx.telemetryWindow.from.toISOString(), ctx.telemetryWindow.to.toISOString()],
  );
  return { ms: nowMs() - start, rows: result.rowCount ?? 0 };
}

/** Every page of 30 days of one-minute points (43,200) at the maximum page size, followed one by one. */
export const telemetryRead: Scenario = {
  name: 'telemetry-read',
  target: TARGET,
  unavailable: () => null,
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const limit = { limit: String(TELEMETRY_MAX_PAGE_SIZE) };
    const first = (app: AppUnderTest): string => telemetryUrl(ctx, app, limit);
    assertSameBody(
      'telemetry-read',
      await getJson<Page>(first(ctx.api), ctx.tenant.token),
      await getJson<Page>(first(ctx.baseline), ctx.tenant.token),
    );
    const expected = Math.round((ctx.telemetryWindow.to.getTime() - ctx.telemetryWindow.from.getTime()) / 60_000);
    const traversals = ctx.options.quick ? 1 : 2;
    const side = (app: AppUnderTest) => async () => {
      const run = await timed(app.process, async () => {
        let requests = 0;
        for (let i = 0; i < traversals; i++) {
          const read = await readAllPages(first(app), ctx.tenant.token);
          if (read.items !== expected) throw new Error(`${app.process.name} returned ${read.items} points, expected ${expected}`);
          requests += read.requests;
        }
        return requests;
      });
      return { value: run.ms / traversals, cpuSeconds: run.cpuSeconds, units: run.units };
    };
    // The raw SELECT is measured in every round right after the paged baseline (same drift as both
    // sides), median of `traversals` selects, on a connection opened (and warmed) beforehand.
    const client = new Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    // The transfer floor: the api's own page bodies, served again from memory (harness/replay.ts).
    const replay = await ReplayServer.start(ctx.root, await pageBodies(first(ctx.api), ctx.tenant.token));
    const raw: number[] = [];
    const floor: number[] = [];
    const floorSide = async (): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < traversals; i++) times.push(await replay.readAllMs(ctx.tenant.token));
      return median(times);
    };
    const rawSide = async (): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < traversals; i++) {
        const select = await rawSelectMs(ctx, client);
        if (select.rows !== expected) throw new Error(`raw SELECT returned ${select.rows} rows`);
        times.push(select.ms);
      }
      return median(times);
    };
    let runs: Awaited<ReturnType<typeof alternate>>;
    try {
      await side(ctx.api)();
      await side(ctx.baseline)();
      await rawSide();
      await floorSide();
      const baselineAndRaw = async () => {
        const run = await side(ctx.baseline)();
        raw.push(await rawSide());
        floor.push(await floorSide());
        return run;
      };
      runs = await alternate(ctx.options.rounds, side(ctx.api), baselineAndRaw, ctx.log, (r) =>
        `${r.value.toFixed(0)} ms for all pages (${r.units / traversals} requests), ${((r.cpuSeconds / r.units) * 1000).toFixed(2)} CPU-ms/req`,
      );
    } finally {
      await client.end();
      await replay.stop();
    }
    ctx.log(`  raw SELECT per round: ${raw.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    ctx.log(`  transfer floor per round: ${floor.map((ms) => ms.toFixed(0)).join(', ')} ms`);

    const project = medianOf(runs.project);
    const baseline = medianOf(runs.baseline);
    const ratio = project / baseline;
    const rawMs = median(raw);
    return [
      {
        scenario: 'telemetry-read',
        metric: `all pages of ${expected.toLocaleString('en-US')} points, limit ${TELEMETRY_MAX_PAGE_SIZE}`,
        unit: 'ms',
        project,
        baseline,
        ratio,
        target: TARGET,
        pass: ratio <= 1.3,
        status: 'measured',
        cpu: { per: 'request', project: cpuPerUnit(runs.project), baseline: cpuPerUnit(runs.baseline) },
        rounds: ctx.options.rounds,
        samples: { project: runs.project.map((r) => r.value), baseline: runs.baseline.map((r) => r.value) },
      },
      {
        scenario: 'telemetry-read',
        metric: `all pages of ${expected.toLocaleString('en-US')} points vs one raw SELECT of all rows (pg client, no HTTP)`,
        unit: 'ms',
        project,
        baseline: rawMs,
        ratio: project / rawMs,
        target: RAW_TARGET,
        pass: project / rawMs <= RAW_LIMIT,
        status: 'measured',
        rounds: raw.length,
        samples: { project: runs.project.map((r) => r.value), baseline: raw },
      },
      transferFloorRow('telemetry-read', "the api's page bodies", 'one raw SELECT', project, floor, raw),
    ];
  },
};
