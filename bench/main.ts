import 'reflect-metadata';
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '@app/config';
import { dispatcherBuilt, startApi, startBaseline, startDispatcher } from './harness/apps';
import { serverVersion } from './harness/bench-database';
import { benchAppEnv } from './harness/app-env';
import { Cleanup } from './harness/cleanup';
import { machineInfo } from './harness/machine';
import { parseOptions } from './harness/options';
import { PRODUCTION_SETTINGS, startOwnCluster } from './harness/own-cluster';
import { attributeServicesToCluster } from './harness/proc-stats';
import { openRunResources } from './harness/run-resources';
import { summarizeProfile } from './harness/profile';
import { compareLayers } from './harness/profile-layers';
import { failed, machineLine, markdownTable, skipped, writeReport, type ResultRow } from './harness/report';
import { seedDevices } from './seed/devices';
import { ensurePartitions, seedMinutePoints } from './seed/telemetry';
import { createTenant, fetchToken } from './seed/tenant';
import { runScale } from './scale/run-scale';
import { SCENARIOS } from './scenarios';
import { memoryRows } from './scenarios/memory';
import type { BenchContext } from './scenarios/scenario';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const TENANT_DEVICES = 600;
const OTHER_TENANT_DEVICES = 1500;

const root = resolve(__dirname, '..', '..');
const resultsDir = join(root, 'bench', 'results');
const started = Date.now();
const log = (message: string): void => {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${message}\n`);
};

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const cleanup = new Cleanup();
  cleanup.onSignals();
  try {
    if (options.scale) await runScale(options, cleanup, { root, resultsDir, started, log });
    else await run(options, cleanup);
  } finally {
    log('cleaning up (processes, broker names, database)');
    await cleanup.run();
  }
}

async function run(options: ReturnType<typeof parseOptions>, cleanup: Cleanup): Promise<void> {
  const now = Date.now();
  const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const loadAtStart = loadavg();
  const cluster = options.ownCluster ? await startOwnCluster(cleanup, log) : null;
  const adminUrl = cluster?.adminUrl ?? options.adminUrl;
  const machine = machineInfo(await serverVersion(adminUrl));

  const { db, databaseUrl, amqpPrefix, tls } = await openRunResources(root, adminUrl, options.amqpUrl, 'cc_bench', cleanup, log);
  // On its own cluster, PostgreSQL's CPU is the whole cluster's (every process of it serves the bench).
  if (cluster) attributeServicesToCluster(cluster.postmasterPid);

  log('seeding: tenants, devices, 30 days of one-minute telemetry');
  const ownedSince = new Date(now - 120 * DAY_MS);
  await ensurePartitions(db, new Date(now - 125 * DAY_MS), new Date(now + DAY_MS));
  const tenant = await createTenant(db, 'Bench tenant');
  const devices = await seedDevices(db, tenant.accountId, TENANT_DEVICES, ownedSince, 'BENCH-A');
  const other = await createTenant(db, 'Other tenant');
  await seedDevices(db, other.accountId, OTHER_TENANT_DEVICES, ownedSince, 'BENCH-B');
  const telemetryWindow = { from: new Date(hour - 30 * DAY_MS), to: new Date(hour) };
  await seedMinutePoints(db, devices[0], telemetryWindow.from, 30 * 24 * 60);
  await db.query('ANALYZE');

  const appEnv = benchAppEnv(databaseUrl, options.amqpUrl, amqpPrefix, tls.caFile);
  const config = loadConfig({ ...appEnv, PUBLIC_BASE_URL: 'http://127.0.0.1' });

  log(`starting the api${options.profile ? ' under --cpu-prof' : ''}, the baseline${dispatcherBuilt(root) ? ' and the dispatcher' : ''}`);
  const profile = options.profile ? { dir: resultsDir, name: 'api.cpuprofile' } : undefined;
  const api = await startApi(root, appEnv, profile);
  cleanup.add('stop the api', () => api.process.stop());
  const baselineProfile = options.profile ? { dir: resultsDir, name: 'baseline.cpuprofile' } : undefined;
  const baseline = await startBaseline(root, appEnv, baselineProfile);
  cleanup.add('stop the baseline', () => baseline.process.stop());
  const dispatcherProfile = options.profile ? { dir: resultsDir, name: 'dispatcher.cpuprofile' } : undefined;
  const dispatcher = dispatcherBuilt(root) ? await startDispatcher(root, appEnv, api, dispatcherProfile) : null;
  if (dispatcher) cleanup.add('stop the dispatcher', () => dispatcher.stop());

  log(`started; peak RSS: api ${api.process.peakRssMb().toFixed(0)} MB, baseline ${baseline.process.peakRssMb().toFixed(0)} MB`);
  const token = await fetchToken(api.base, tenant);
  const schema = (await (await fetch(`${api.base}/schema/`)).json()) as { paths?: Record<string, unknown> };
  const ctx: BenchContext = {
    options: { ...options, adminUrl },
    root,
    db,
    databaseUrl,
    appEnv,
    config,
    api,
    baseline,
    dispatcher,
    tls,
    tenant: { ...tenant, token },
    devices,
    telemetryWindow,
    ingestWindowStart: new Date(hour - 115 * DAY_MS),
    openApiPaths: new Set(Object.keys(schema.paths ?? {})),
    cleanup,
    log,
  };

  const rows: ResultRow[] = [];
  for (const scenario of SCENARIOS) {
    if (options.only.length > 0 && !options.only.includes(scenario.name)) continue;
    await scenario.prepare?.(ctx);
    const reason = scenario.unavailable(ctx);
    if (reason) {
      log(`${scenario.name}: skipped (${reason})`);
      rows.push(skipped(scenario.name, scenario.target, reason));
      continue;
    }
    log(`${scenario.name}: running`);
    try {
      rows.push(...(await scenario.run(ctx)));
    } catch (error) {
      log(`${scenario.name}: FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      for (const app of [api.process, baseline.process, dispatcher]) if (app?.tail()) log(`last output of ${app.name}:\n${app.tail()}`);
      rows.push(failed(scenario.name, scenario.target, error));
    }
    log(`${scenario.name}: done; peak RSS so far: api ${api.process.peakRssMb().toFixed(0)} MB, baseline ${baseline.process.peakRssMb().toFixed(0)} MB${dispatcher ? `, dispatcher ${dispatcher.peakRssMb().toFixed(0)} MB` : ''}`);
  }
  rows.push(...memoryRows(ctx));

  const profiled: Array<[string, { send(message: unknown): void; waitForExit(ms: number): Promise<unknown> } | null, typeof profile]> = [
    ['api', api.process, profile],
    ['baseline', baseline.process, baselineProfile],
    ['dispatcher', dispatcher, dispatcherProfile],
  ];
  for (const [name, app, setup] of profiled) {
    if (!setup || !app) continue;
    log(`stopping the ${name} so that V8 writes its CPU profile`);
    app.send({ type: 'bench:exit' });
    await app.waitForExit(30_000);
    const file = join(setup.dir, setup.name);
    if (existsSync(file)) {
      const summary = summarizeProfile(file);
      writeFileSync(join(resultsDir, `${name}-profile-summary.md`), `${summary}\n`);
      process.stderr.write(`\n${summary}\n\n`);
    } else log(`no profile written at ${file}`);
  }

  const httpScenarios = rows.filter((r) => r.status === 'measured' && r.cpu?.per === 'request' && r.cpu.project !== null && r.cpu.baseline !== null);
  if (profile && baselineProfile && httpScenarios.length === 1 && existsSync(join(resultsDir, profile.name)) && existsSync(join(resultsDir, baselineProfile.name))) {
    const [measured] = httpScenarios;
    const layers = compareLayers(join(resultsDir, profile.name), join(resultsDir, baselineProfile.name), { project: measured.cpu?.project ?? 0, baseline: measured.cpu?.baseline ?? 0 }, measured.scenario);
    writeFileSync(join(resultsDir, 'api-vs-baseline-layers.md'), `${layers}\n`);
    process.stderr.write(`\n${layers}\n\n`);
  } else if (profile) log('layer comparison: profile exactly one HTTP scenario (e.g. --only=api-list --profile) to get bench/results/api-vs-baseline-layers.md');

  const report = {
    mode: options.quick ? ('quick' as const) : ('full' as const),
    machine,
    postgres: cluster ? { server: 'own cluster' as const, version: cluster.version, settings: Object.fromEntries(PRODUCTION_SETTINGS) } : { server: 'shared' as const, url: adminUrl },
    load_average: { start: loadAtStart, end: loadavg() },
    duration_s: Math.round((Date.now() - started) / 1000),
    results: rows,
  };
  writeReport(join(resultsDir, 'latest.json'), report);
  process.stdout.write(`\n${markdownTable(rows)}\n\nMachine: ${machineLine(machine)}. PostgreSQL: ${cluster ? `own cluster (${cluster.version}, settings in BENCHMARKS.md)` : 'shared server'}. Load average (1/5/15 min) at start ${fmtLoad(loadAtStart)}, at end ${fmtLoad(report.load_average.end)}. Mode: ${report.mode}, ${options.rounds} rounds, ${report.duration_s} s. Results: bench/results/latest.json\n`);
  if (rows.some((r) => r.status === 'failed')) process.exitCode = 1;
}

const fmtLoad = (load: number[]): string => load.map((n) => n.toFixed(1)).join(' / ');

main().catch((error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
