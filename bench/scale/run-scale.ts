import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { connect } from 'amqplib';
import { Client } from 'pg';
import { loadConfig } from '@app/config';
import { ingestTopology } from '@app/domain';
import { shipmentDetailAdapter } from '../adapters/shipments.adapter';
import { benchAppEnv, deleteRunBrokerNames } from '../harness/app-env';
import { startApi } from '../harness/apps';
import { createRunDatabase, serverVersion, uniqueName } from '../harness/bench-database';
import type { Cleanup } from '../harness/cleanup';
import { getJson } from '../harness/load';
import { machineInfo } from '../harness/machine';
import { cpuSecondsByPid, cpuSecondsSince } from '../harness/proc-stats';
import type { BenchOptions } from '../harness/options';
import type { PointPlan } from '../harness/points';
import { machineLine, writeReport } from '../harness/report';
import { median, nowMs, percentile, sleep } from '../harness/stats';
import { growGrid, seedProbeWindows, sizeFacts, vacuumAnalyze } from '../seed/scale-seed';
import { seedDevices, type SeededDevice } from '../seed/devices';
import { ensurePartitions } from '../seed/telemetry';
import { createTenant, fetchToken } from '../seed/tenant';
import { lastPointsStored, messages, publishAll, storedCount } from '../scenarios/ingest';
import { TELEMETRY_QUERIES } from '../../libs/domain/src/telemetry/telemetry.queries';
import { DAY_MS, formatPoints, FULL_SIZES, gridPlan, QUICK_SIZES, SCALE_DEVICES, SCALE_FACTOR_TARGET, seededRandom, wholeMonths, type GridPlan } from './plan';
import { scaleChart, scaleMarkdown, scaleRows, type MeasureName, type SizeResult } from './scale-report';

const HOUR_MS = 3_600_000;
/** Probe devices: one-minute points in the windows the page reads ask for (the same pages at every size). */
const PROBES = 10;
/** One-minute points at the start of every old month, per probe (more than one page). */
const MONTH_HEAD_MINUTES = 120;
/** The shipment tracks three probes. */
const SHIPMENT_DEVICES = 3;
/** Ingestion goes to 100 devices that are neither probes nor tracked (as the ingest scenario). */
const INGEST_DEVICES = 100;
const PAGE = 100;
const STORE_TIMEOUT_MS = 300_000;

export interface ScaleRunEnv {
  root: string;
  resultsDir: string;
  started: number;
  log(message: string): void;
}

interface ReadTarget {
  kind: MeasureName;
  url(random: () => number): string;
  expect: number | null;
}

/**
 * `npm run bench -- --scale`: one database grown through the sizes (1 M, 10 M, 50 M points; quick 1 M,
 * 5 M) with the real api running; at each size, after VACUUM ANALYZE: the telemetry page of the
 * latest day and of a random old month, a shipment's tracking page, the device list (p50/p99 of
 * many sequential requests), ingestion through RabbitMQ, and the database size.
 */
export async function runScale(options: BenchOptions, cleanup: Cleanup, env: ScaleRunEnv): Promise<void> {
  const { log } = env;
  const sizes = options.sizes ?? [...(options.quick ? QUICK_SIZES : FULL_SIZES)];
  const plan = gridPlan(sizes);
  const rounds = options.rounds;
  const requestsPerRound = options.quick ? 100 : 200;
  const ingestPoints = options.quick ? 40_000 : 100_000;
  const machine = machineInfo(await serverVersion(options.adminUrl));

  const now = Date.now();
  const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const gridEnd = hour;
  const gridStart = gridEnd - plan.spanMs;
  const latestDay = { from: hour - DAY_MS, to: hour };
  const months = wholeMonths(gridStart, hour - 31 * DAY_MS);
  const ingestBase = hour - 40 * DAY_MS;

  const { databaseUrl, db } = await createRunDatabase(options.adminUrl, 'cc_bench_scale', cleanup, log);
  const amqpPrefix = uniqueName('cc_bench');
  cleanup.add(`delete broker names ${amqpPrefix}.*`, () => deleteRunBrokerNames(env.root, options.amqpUrl, amqpPrefix));

  log(`seeding: ${SCALE_DEVICES} devices, partitions over ${(plan.spanMs / DAY_MS).toFixed(0)} days, ${PROBES} probe devices with one-minute windows, a shipment`);
  await ensurePartitions(db, new Date(gridStart - DAY_MS), new Date(hour + DAY_MS));
  const tenant = await createTenant(db, 'Scale tenant');
  const devices = await seedDevices(db, tenant.accountId, SCALE_DEVICES, new Date(gridStart - DAY_MS), 'SCALE');
  const probes = devices.slice(0, PROBES);
  const probeWindows = [{ start: latestDay.from, minutes: 24 * 60 }, ...months.map((m) => ({ start: m.start, minutes: MONTH_HEAD_MINUTES }))];
  const probeRows = await seedProbeWindows(databaseUrl, probes, probeWindows);
  const shipmentId = await shipmentDetailAdapter().seed(db, tenant.accountId, probes.slice(0, SHIPMENT_DEVICES));
  const ingestDevices = devices.slice(100, 100 + INGEST_DEVICES);
  log(`probe rows: ${probeRows}; ${months.length} old months; shipment ${shipmentId}`);

  const appEnv = benchAppEnv(databaseUrl, options.amqpUrl, amqpPrefix);
  const config = loadConfig({ ...appEnv, PUBLIC_BASE_URL: 'http://127.0.0.1' });
  log('starting the api');
  const api = await startApi(env.root, appEnv);
  cleanup.add('stop the api', () => api.process.stop());
  const token = await fetchToken(api.base, tenant);

  const iso = (ms: number): string => new Date(ms).toISOString();
  const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const telemetry = (device: SeededDevice, from: number, to: number): string =>
    `${api.base}/devices/${device.deviceId}/telemetry/?${new URLSearchParams({ from: iso(from), to: iso(to) }).toString()}`;
  const targets: ReadTarget[] = [
    { kind: 'telemetry-latest-day', url: (r) => telemetry(pick(r, probes), latestDay.from, latestDay.to), expect: PAGE },
    { kind: 'telemetry-old-month', url: (r) => { const m = pick(r, months); return telemetry(pick(r, probes), m.start, m.end); }, expect: PAGE },
    { kind: 'tracking', url: () => `${api.base}/shipments/${shipmentId}/tracking/`, expect: PAGE },
    { kind: 'device-list', url: () => `${api.base}/devices/`, expect: null },
  ];

  const topology = ingestTopology(config.amqpPrefix);
  const connection = await connect(options.amqpUrl);
  cleanup.add('close the broker connection', () => connection.close().catch(() => undefined));
  const channel = await connection.createConfirmChannel();
  let ingestWindow = 0;
  const ingestPerDevice = Math.ceil(ingestPoints / INGEST_DEVICES);
  const ingestRound = async (scale = 1): Promise<{ pointsPerSecond: number; points: number }> => {
    const ingestPlan: PointPlan = {
      deviceIds: ingestDevices.map((d) => d.deviceId),
      fromMs: ingestBase + ingestWindow * ingestPerDevice * 60_000,
      perDevice: Math.ceil(ingestPerDevice * scale),
    };
    ingestWindow++;
    if (ingestPlan.fromMs + ingestPlan.perDevice * 60_000 > latestDay.from) throw new Error('ingest windows ran into the latest day: fewer rounds or points');
    const expected = ingestPlan.perDevice * ingestPlan.deviceIds.length;
    const bodies = messages(ingestPlan);
    const start = nowMs();
    await publishAll(channel, topology.exchange, bodies);
    for (let stored = 0; stored < expected; stored = (await lastPointsStored(db, ingestPlan)) ? await storedCount(db, ingestPlan) : 0) {
      if (nowMs() - start > STORE_TIMEOUT_MS) throw new Error(`ingest: ${stored} of ${expected} points stored after ${STORE_TIMEOUT_MS} ms`);
      api.process.assertRunning();
      await sleep(20);
    }
    return { pointsPerSecond: expected / ((nowMs() - start) / 1000), points: expected };
  };
  const meterClient = new Client({ connectionString: databaseUrl });
  await meterClient.connect();
  cleanup.add('close the CPU meter connection', () => meterClient.end());
  const cpu = cpuMeter(api.process, meterClient);

  const explain: string[] = [];
  const results: SizeResult[] = [];
  mkdirSync(env.resultsDir, { recursive: true });
  for (let index = 0; index < plan.sizes.length; index++) {
    const size = plan.sizes[index];
    const growStart = nowMs();
    log(`size ${formatPoints(size)}: growing the grid (step ${plan.steps[index]} of ${plan.slots} slots per device)`);
    let lastLog = 0;
    const added = await growGrid(databaseUrl, plan, index, devices, gridStart, (done, total, rows) => {
      if (nowMs() - lastLog > 15_000 || done === total) {
        lastLog = nowMs();
        log(`  ${done}/${total} chunks, ${rows.toLocaleString('en-US')} rows`);
      }
    });
    const seedSeconds = (nowMs() - growStart) / 1000;
    log(`size ${formatPoints(size)}: ${added.toLocaleString('en-US')} rows in ${seedSeconds.toFixed(0)} s; VACUUM (ANALYZE)`);
    const vacuumStart = nowMs();
    await vacuumAnalyze(databaseUrl);
    const vacuumSeconds = (nowMs() - vacuumStart) / 1000;
    const facts = await sizeFacts(databaseUrl);
    log(`size ${formatPoints(size)}: vacuumed in ${vacuumSeconds.toFixed(0)} s; ${facts.points.toLocaleString('en-US')} points, database ${(facts.databaseBytes / 2 ** 30).toFixed(2)} GiB`);

    const load = [loadavg()[0]];
    const latencies = await measureReads(targets, token, rounds, requestsPerRound, cpu, log, `size ${formatPoints(size)}`);
    load.push(loadavg()[0]);
    await ingestRound(0.1);
    const ingest: number[] = [];
    const ingestCpu = { api: 0, database: 0, points: 0 };
    for (let round = 0; round < rounds; round++) {
      const before = await cpu.read();
      const run = await ingestRound();
      const spent = cpu.since(before, await cpu.read());
      ingestCpu.api += spent.api;
      ingestCpu.database += spent.database;
      ingestCpu.points += run.points;
      ingest.push(run.pointsPerSecond);
      log(`  ingest round ${round + 1}/${rounds}: ${run.pointsPerSecond.toFixed(0)} points/s, ${(((spent.api + spent.database) / run.points) * 1e6).toFixed(1)} CPU-µs/point (api + backends)`);
    }
    load.push(loadavg()[0]);
    explain.push(await explainReads(databaseUrl, tenant.accountId, probes[0], latestDay, months[Math.floor(months.length / 2)], size));
    results.push({ size, facts, latencies, ingest, ingestCpuUs: { api: (ingestCpu.api / ingestCpu.points) * 1e6, database: (ingestCpu.database / ingestCpu.points) * 1e6 }, load, seedSeconds, vacuumSeconds });
    writeOutputs(env, options, machine, plan, results, explain);
  }
  await channel.close();
  const { markdown } = writeOutputs(env, options, machine, plan, results, explain);
  process.stdout.write(`\n${markdown}\n\nMachine: ${machineLine(machine)}. Mode: scale${options.quick ? ' quick' : ''}, ${rounds} rounds, ${Math.round((Date.now() - env.started) / 1000)} s. Results: bench/results/latest.json, scale.md, scale.svg, scale-cpu.svg, scale-explain.md, scale-sizes.json\n`);
}

/** Requests of one read in a row between two CPU readings (the reads take turns block by block). */
const BLOCK = 25;

async function measureReads(
  targets: readonly ReadTarget[],
  token: string,
  rounds: number,
  perRound: number,
  cpu: ReturnType<typeof cpuMeter>,
  log: (message: string) => void,
  label: string,
): Promise<SizeResult['latencies']> {
  const random = seededRandom(16);
  const perKind = new Map<MeasureName, { p50: number[]; p99: number[]; api: number; database: number; requests: number }>(
    targets.map((t) => [t.kind, { p50: [], p99: [], api: 0, database: 0, requests: 0 }]),
  );
  // Round -1 warms up (half a round, not recorded).
  for (let round = -1; round < rounds; round++) {
    const samples = new Map<MeasureName, number[]>(targets.map((t) => [t.kind, []]));
    const blocks = Math.ceil((round < 0 ? perRound / 2 : perRound) / BLOCK);
    for (let b = 0; b < blocks; b++) {
      for (let k = 0; k < targets.length; k++) {
        const target = targets[(b + k) % targets.length];
        const before = await cpu.read();
        for (let i = 0; i < BLOCK; i++) {
          const url = target.url(random);
          const start = nowMs();
          const page = await getJson<{ data: unknown[] }>(url, token);
          const ms = nowMs() - start;
          if (target.expect !== null && page.data.length !== target.expect) throw new Error(`${target.kind}: ${page.data.length} items, expected ${target.expect} (${url})`);
          if (page.data.length === 0) throw new Error(`${target.kind}: empty page (${url})`);
          samples.get(target.kind)?.push(ms);
        }
        const spent = cpu.since(before, await cpu.read());
        const entry = perKind.get(target.kind);
        if (entry && round >= 0) {
          entry.api += spent.api;
          entry.database += spent.database;
          entry.requests += BLOCK;
        }
      }
    }
    if (round < 0) continue;
    const line: string[] = [];
    for (const [kind, values] of samples) {
      const entry = perKind.get(kind);
      entry?.p50.push(percentile(values, 50));
      entry?.p99.push(percentile(values, 99));
      line.push(`${kind} ${percentile(values, 50).toFixed(2)}/${percentile(values, 99).toFixed(2)}`);
    }
    log(`  ${label} reads round ${round + 1}/${rounds} (p50/p99 ms): ${line.join(', ')}`);
  }
  const out: SizeResult['latencies'] = {};
  for (const [kind, entry] of perKind) {
    out[kind] = {
      p50: median(entry.p50),
      p99: median(entry.p99),
      rounds: { p50: entry.p50, p99: entry.p99 },
      cpuMs: { api: (entry.api / entry.requests) * 1000, database: (entry.database / entry.requests) * 1000 },
    };
  }
  log(`  ${label} CPU-ms per request (api + its PostgreSQL backends): ${[...perKind].map(([kind, e]) => `${kind} ${((e.api / e.requests) * 1000).toFixed(2)} + ${((e.database / e.requests) * 1000).toFixed(2)}`).join(', ')}`);
  return out;
}

/** CPU readings: the api process and each PostgreSQL backend of this database, by pid. */
interface CpuReading {
  api: number;
  backends: Map<number, number>;
}

/**
 * CPU of the api process and of the PostgreSQL backends serving this database (its pool and the
 * ingestion consumer; not the other databases on the shared server), read from /proc/<pid>/stat.
 * The pool opens and closes connections: a backend's CPU counts from 0 when it appears (its start
 * is part of the cost) and one that exits is left out (it was idle, that is why it was closed).
 */
function cpuMeter(api: { cpuSeconds(): number }, client: Client): { read(): Promise<CpuReading>; since(before: CpuReading, after: CpuReading): { api: number; database: number } } {
  return {
    async read() {
      const { rows } = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      const backends = cpuSecondsByPid(rows.map((r) => r.pid));
      return { api: api.cpuSeconds(), backends };
    },
    since(before, after) {
      return { api: after.api - before.api, database: cpuSecondsSince(before.backends, after.backends) };
    },
  };
}

/** EXPLAIN (ANALYZE, BUFFERS) of the page query the api runs for a latest-day and an old-month page (evidence per size). */
async function explainReads(
  databaseUrl: string,
  accountId: string,
  probe: SeededDevice,
  latestDay: { from: number; to: number },
  month: { start: number; end: number } | undefined,
  size: number,
): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const parts = [`## ${formatPoints(size)} points`];
    const windows: Array<[string, number, number]> = [['latest day', latestDay.from, latestDay.to]];
    if (month) windows.push([`old month ${new Date(month.start).toISOString().slice(0, 7)}`, month.start, month.end]);
    for (const [name, from, to] of windows) {
      // Twice: the second run is the one reported (the api's reads are warm too).
      let text = '';
      for (let i = 0; i < 2; i++) {
        const result = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${TELEMETRY_QUERIES.packedPoints.text}`, [
          accountId,
          probe.deviceId,
          probe.lifecycleId,
          new Date(from).toISOString(),
          new Date(to).toISOString(),
          PAGE + 1,
        ]);
        text = result.rows.map((r) => r['QUERY PLAN']).join('\n');
      }
      parts.push(`### ${name}\n\n\`\`\`\n${text}\n\`\`\``);
    }
    return parts.join('\n\n');
  } finally {
    await client.end();
  }
}

function writeOutputs(
  env: ScaleRunEnv,
  options: BenchOptions,
  machine: ReturnType<typeof machineInfo>,
  plan: GridPlan,
  results: readonly SizeResult[],
  explain: readonly string[],
): { markdown: string } {
  const markdown = scaleMarkdown(results, SCALE_FACTOR_TARGET);
  writeFileSync(join(env.resultsDir, 'scale.md'), `${markdown}\n`);
  writeFileSync(join(env.resultsDir, 'scale-explain.md'), `# EXPLAIN (ANALYZE, BUFFERS) of the telemetry page query per size\n\n${explain.join('\n\n')}\n`);
  writeFileSync(join(env.resultsDir, 'scale-sizes.json'), `${JSON.stringify({ plan, machine, sizes: results }, null, 2)}\n`);
  if (results.length >= 2) {
    const subtitle = `${machine.cpu_model}, ${machine.cores} cores; PostgreSQL ${machine.postgresql_version}; ${machine.date}`;
    writeFileSync(join(env.resultsDir, 'scale.svg'), scaleChart(results, SCALE_FACTOR_TARGET, subtitle));
    if (results.every((r) => r.ingestCpuUs)) writeFileSync(join(env.resultsDir, 'scale-cpu.svg'), scaleChart(results, SCALE_FACTOR_TARGET, subtitle, 'cpu'));
    const rows = scaleRows(results, SCALE_FACTOR_TARGET, options.rounds);
    writeReport(join(env.resultsDir, 'latest.json'), { mode: options.quick ? 'quick' : 'full', machine, duration_s: Math.round((Date.now() - env.started) / 1000), results: rows });
  }
  return { markdown };
}

