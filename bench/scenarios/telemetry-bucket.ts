import { BUCKET_WIDTHS, pageBucketWindow } from '@app/domain';
import { TelemetryRepository } from '@app/domain/telemetry/telemetry.repository';
import { alternate, cpuPerUnit, medianOf, type SideRun } from '../harness/alternate';
import { sqlShim } from '../baseline/sql-shim';
import { median, nowMs } from '../harness/stats';
import { getJson, getText, timed } from '../harness/load';
import { ReplayServer, transferFloorRow } from '../harness/replay';
import type { ResultRow } from '../harness/report';
import { TELEMETRY_MAX_PAGE_SIZE } from '../../apps/api/src/telemetry/dto/telemetry-query.dto';
import { assertSameBody } from './compare';
import type { AppUnderTest, BenchContext, Scenario } from './scenario';
import { telemetryUrl, type Page } from './telemetry-pages';

const TARGET = 'time ratio ≤ 1.3';
/** Issue 28: each bucketed read within 1.1 × its bare SQL (the project's statement through a pg client, no HTTP). */
const SQL_TARGET = 'time ratio ≤ 1.1 × bare SQL';
const SQL_LIMIT = 1.1;

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
    // The bare SQL: the project's bucket statement (TelemetryRepository.buckets, same window) on one pg connection.
    const { dataSource, pool } = sqlShim(ctx.databaseUrl, 1);
    // The transfer floor: the api's own body, served again from memory (harness/replay.ts).
    const replay = await ReplayServer.start(ctx.root, [await getText(url(ctx.api), ctx.tenant.token)]);
    const floor: number[] = [];
    const floorSide = async (): Promise<number> => {
      let ms = 0;
      for (let i = 0; i < requests; i++) ms += await replay.readAllMs(ctx.tenant.token);
      return ms / requests;
    };
    const scope = { accountId: ctx.tenant.accountId, deviceId: ctx.devices[0].deviceId, lifecycleId: ctx.devices[0].lifecycleId };
    const widthMs = BUCKET_WIDTHS['1h'];
    const window = pageBucketWindow(widthMs, ctx.telemetryWindow, { after: null, limit: TELEMETRY_MAX_PAGE_SIZE });
    if (!window) throw new Error('telemetry-bucket: empty bucket window');
    const repository = new TelemetryRepository(dataSource);
    const bareSql: number[] = [];
    const sqlSide = async (): Promise<number> => {
      const start = nowMs();
      for (let i = 0; i < requests; i++) {
        const rows = await repository.buckets(scope, widthMs, { first: window.first, last: window.last, from: window.pointsFrom, to: window.pointsTo });
        if (rows.length !== 720) throw new Error(`bare bucket SQL returned ${rows.length} rows`);
      }
      return (nowMs() - start) / requests;
    };
    let runs: Awaited<ReturnType<typeof alternate>>;
    try {
      await side(ctx.api)();
      await side(ctx.baseline)();
      await sqlSide();
      await floorSide();
      const baselineAndSql = async (): Promise<SideRun> => {
        const run = await side(ctx.baseline)();
        bareSql.push(await sqlSide());
        floor.push(await floorSide());
        return run;
      };
      runs = await alternate(ctx.options.rounds, side(ctx.api), baselineAndSql, ctx.log, (r) =>
        `${r.value.toFixed(1)} ms/request, ${((r.cpuSeconds / r.units) * 1000).toFixed(2)} CPU-ms/req`,
      );
    } finally {
      await pool.end();
      await replay.stop();
    }
    ctx.log(`  bare bucket SQL per round: ${bareSql.map((ms) => ms.toFixed(1)).join(', ')} ms/request`);
    ctx.log(`  transfer floor per round: ${floor.map((ms) => ms.toFixed(1)).join(', ')} ms/request`);
    const p = medianOf(runs.project);
    const b = medianOf(runs.baseline);
    const s = median(bareSql);
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
      {
        scenario: 'telemetry-bucket',
        metric: '30 days at bucket=1h, per request, vs the bare bucket SQL (pg client, no HTTP)',
        unit: 'ms',
        project: p,
        baseline: s,
        ratio: p / s,
        target: SQL_TARGET,
        pass: p / s <= SQL_LIMIT,
        status: 'measured',
        rounds: ctx.options.rounds,
        samples: { project: runs.project.map((r) => r.value), baseline: bareSql },
      },
      transferFloorRow('telemetry-bucket', "the api's body", 'the bare bucket SQL', p, floor, bareSql),
    ];
  },
};
