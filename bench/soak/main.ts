import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from 'amqplib';
import { loadConfig } from '@app/config';
import { ingestTopology } from '@app/domain';
import { shipmentDetailAdapter } from '../adapters/shipments.adapter';
import { benchAppEnv } from '../harness/app-env';
import { startApi, startDispatcher } from '../harness/apps';
import { serverVersion } from '../harness/bench-database';
import { Cleanup } from '../harness/cleanup';
import { getJson } from '../harness/load';
import { machineInfo } from '../harness/machine';
import { servicesCpuSeconds } from '../harness/proc-stats';
import { openRunResources } from '../harness/run-resources';
import { nowMs, sleep } from '../harness/stats';
import { seedDevices } from '../seed/devices';
import { ensurePartitions, seedMinutePoints } from '../seed/telemetry';
import { createTenant, fetchToken } from '../seed/tenant';
import { checkDeliveryLedger, receiverWithEndpoints, type WebhookFixtureContext } from '../scenarios/webhook-fixture';
import { renderTimeChart } from './chart';
import { EventFeed, IngestFeed, saturateEvents, saturateIngest, startReads, steadyEvents, steadyIngest, type CollectorRef } from './loads';
import { parseSoakOptions, SOAK_USAGE, type SoakOptions } from './options';
import { soakChart, verdictLines, windowsTable } from './report';
import { emptyCollector, gaugeValue, halfOf, summarizeWindow, verdict, warmupWindows, type ErrorTally, type ProcessReadings, type SoakWindow } from './windows';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const DEVICES = 600;
/** Devices the ingestion stream writes to (1..500); device 0 carries the telemetry read; 501..503 the shipment. */
const INGEST_DEVICES = 500;
const READ_CONNECTIONS = 16;
const DRAIN_TIMEOUT_MS = 180_000;
const TOKEN_REFRESH_MS = 15 * 60_000;

const root = resolve(__dirname, '..', '..', '..');
const resultsDir = join(root, 'bench', 'results');
const started = Date.now();
const log = (message: string): void => {
  process.stderr.write(`[soak ${((Date.now() - started) / 1000).toFixed(0).padStart(5)}s] ${message}\n`);
};

async function main(): Promise<void> {
  const parsed = parseSoakOptions(process.argv.slice(2), process.env);
  if (parsed === 'help') {
    process.stdout.write(`${SOAK_USAGE}\n`);
    return;
  }
  const cleanup = new Cleanup();
  cleanup.onSignals();
  try {
    await run(parsed, cleanup);
  } finally {
    log('cleaning up (processes, broker names, database)');
    await cleanup.run();
  }
}

async function run(options: SoakOptions, cleanup: Cleanup): Promise<void> {
  const now = Date.now();
  const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const machine = machineInfo(await serverVersion(options.adminUrl));

  const { db, databaseUrl, amqpPrefix, tls } = await openRunResources(root, options.adminUrl, options.amqpUrl, 'cc_soak', cleanup, log);

  log('seeding: a tenant, 600 devices, 30 days of one-minute telemetry for one of them, a shipment');
  await ensurePartitions(db, new Date(now - 125 * DAY_MS), new Date(now + DAY_MS));
  const tenant = await createTenant(db, 'Soak tenant');
  const devices = await seedDevices(db, tenant.accountId, DEVICES, new Date(now - 120 * DAY_MS), 'SOAK-A');
  await seedMinutePoints(db, devices[0], new Date(hour - 30 * DAY_MS), 30 * 24 * 60);
  const shipmentId = await shipmentDetailAdapter().seed(db, tenant.accountId, devices.slice(INGEST_DEVICES + 1, INGEST_DEVICES + 4));
  await db.query('ANALYZE');

  const appEnv = benchAppEnv(databaseUrl, options.amqpUrl, amqpPrefix, tls.caFile);
  const config = loadConfig({ ...appEnv, PUBLIC_BASE_URL: 'http://127.0.0.1' });
  log('starting the api and the dispatcher');
  const api = await startApi(root, appEnv);
  cleanup.add('stop the api', () => api.process.stop());
  const dispatcher = await startDispatcher(root, appEnv, api);
  cleanup.add('stop the dispatcher', () => dispatcher.stop());

  let token = await fetchToken(api.base, tenant);
  const refresh = setInterval(() => {
    fetchToken(api.base, tenant).then(
      (fresh) => (token = fresh),
      (error: unknown) => log(`token refresh failed (the old token stays in use): ${String(error)}`),
    );
  }, TOKEN_REFRESH_MS);
  cleanup.add('stop the token refresh', () => Promise.resolve(clearInterval(refresh)));

  const fixture: WebhookFixtureContext = { root, tls, db, config, tenant: { ...tenant, token }, devices };
  const { receiver, endpoints } = await receiverWithEndpoints(fixture, options.endpoints, ['shipment.completed'], '/soak');
  cleanup.add('stop the receiver', () => receiver.process.stop());

  const apiPrefix = new URL(api.base).pathname;
  const day = new URLSearchParams({ from: new Date(hour - DAY_MS).toISOString(), to: new Date(hour).toISOString(), limit: '100' });
  const paths = [`${apiPrefix}/devices/?limit=50`, `${apiPrefix}/devices/${devices[0].deviceId}/telemetry/?${day.toString()}`, `${apiPrefix}/shipments/${shipmentId}/`];
  for (const path of paths) await getJson(`${api.origin}${path}`, token);

  const topology = ingestTopology(config.amqpPrefix);
  const amqp = await connect(options.amqpUrl);
  cleanup.add('close the AMQP connection', () => amqp.close().catch(() => undefined));
  const channel = await amqp.createConfirmChannel();
  const ingestDevices = devices.slice(1, 1 + INGEST_DEVICES).map((d) => d.deviceId);
  const ingestFrom = hour - 115 * DAY_MS;
  const feed = new IngestFeed(channel, topology.exchange, { deviceIds: ingestDevices, fromMs: ingestFrom, perDevice: 110 * 24 * 60 });
  const events = new EventFeed(db, fixture);
  const queued = async (): Promise<number> => (await channel.checkQueue(topology.queue)).messageCount;
  const stored = async (): Promise<number> => {
    const rows = (await db.query(`SELECT count(*)::bigint AS n FROM telemetry_points WHERE device_id = ANY($1::uuid[]) AND recorded_at >= $2`, [ingestDevices, new Date(ingestFrom).toISOString()])) as Array<{ n: string }>;
    return Number(rows[0].n);
  };
  const assertAlive = (): void => {
    api.process.assertRunning();
    dispatcher.assertRunning();
  };
  const tally: ErrorTally = { readErrors: 0, lostPoints: 0, deadLettered: 0, missingDeliveries: 0, duplicateDeliveries: 0, other: [] };

  // ---------------------------------------------------------------------------------- capacity
  const fixed = options.rateReads !== null && options.rateIngest !== null && options.rateEvents !== null;
  let capacity: { reads_per_s: number; points_per_s: number; deliveries_per_s: number; seconds: number; load1: number } | null = null;
  if (!fixed) {
    log(`capacity: reads (closed loop, ${READ_CONNECTIONS} connections), ingestion and webhook deliveries all at once for ${options.capacitySeconds} s`);
    const capRef: CollectorRef = { current: emptyCollector() };
    let stop = false;
    const storedBefore = await stored();
    const deliveredBefore = await receiver.count();
    const t0 = nowMs();
    const reads = startReads(api.origin, paths, () => token, READ_CONNECTIONS, options.capacitySeconds, null, capRef);
    const ingestLoop = saturateIngest(feed, queued, 200, () => stop);
    const eventLoop = saturateEvents(events, endpoints.length, () => receiver.count(), 2000, () => stop);
    await sleep(options.capacitySeconds * 1000);
    stop = true;
    const seconds = (nowMs() - t0) / 1000;
    const [storedAfter, deliveredAfter] = [await stored(), await receiver.count()];
    await Promise.all([reads.done, ingestLoop, eventLoop]);
    const c = capRef.current;
    tally.readErrors += c.readNon2xx + c.readErrors;
    capacity = {
      reads_per_s: c.readOk / options.capacitySeconds,
      points_per_s: (storedAfter - storedBefore) / seconds,
      deliveries_per_s: (deliveredAfter - deliveredBefore) / seconds,
      seconds: Math.round(seconds),
      load1: Math.round(loadavg()[0] * 100) / 100,
    };
    log(`capacity together: ${capacity.reads_per_s.toFixed(0)} reads/s, ${capacity.points_per_s.toFixed(0)} points/s, ${capacity.deliveries_per_s.toFixed(0)} deliveries/s; ${c.readNon2xx + c.readErrors} read errors; load ${capacity.load1}`);
    await drain(log, DRAIN_TIMEOUT_MS, queued, stored, () => feed.published, () => receiver.count(), () => events.committed * endpoints.length, assertAlive);
  }
  const rates = {
    reads_per_s: options.rateReads ?? halfOf(capacity?.reads_per_s ?? 0),
    points_per_s: options.rateIngest ?? halfOf(capacity?.points_per_s ?? 0),
    deliveries_per_s: options.rateEvents ?? halfOf(capacity?.deliveries_per_s ?? 0),
  };
  const eventsPerS = rates.deliveries_per_s / endpoints.length;
  log(`steady: ${rates.reads_per_s} reads/s, ${rates.points_per_s} points/s, ${rates.deliveries_per_s} deliveries/s (${eventsPerS.toFixed(1)} events/s × ${endpoints.length} endpoints) for ${options.minutes} min, a sample every ${options.sampleSeconds} s`);

  // ------------------------------------------------------------------------------------ steady
  await receiver.take(); // latency samples start with the steady run
  let lastTotal = await receiver.count();
  const heapUsedMb = async (): Promise<number | null> => {
    if (!api.opsOrigin) return null;
    try {
      const bytes = gaugeValue(await (await fetch(`${api.opsOrigin}/metrics`)).text(), 'nodejs_heap_size_used_bytes');
      return bytes === null ? null : bytes / 2 ** 20;
    } catch {
      return null;
    }
  };
  const readings = async (): Promise<ProcessReadings> => ({
    apiRssMb: api.process.rssMb(),
    apiHeapUsedMb: await heapUsedMb(),
    dispatcherRssMb: dispatcher.rssMb(),
    apiCpuS: api.process.cpuSeconds(),
    dispatcherCpuS: dispatcher.cpuSeconds(),
    servicesCpuS: servicesCpuSeconds(),
    load1: Math.round(loadavg()[0] * 100) / 100,
    ingestBacklog: await queued(),
  });
  const seconds = options.minutes * 60;
  const total = Math.max(1, Math.round(seconds / options.sampleSeconds));
  const warm = warmupWindows(total);
  const ref: CollectorRef = { current: emptyCollector() };
  let stop = false;
  const failures: unknown[] = [];
  const guard = (p: Promise<void>, what: string): Promise<void> =>
    p.catch((error: unknown) => {
      failures.push(error);
      tally.other.push(`${what} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      stop = true;
    });
  const windows: SoakWindow[] = [];
  let pending: Array<[string, number]> = [];
  const runInfo = () => ({ mode: 'soak' as const, machine, options: { ...options, adminUrl: undefined, amqpUrl: undefined }, capacity, rates, endpoints: endpoints.length, warmup_windows: warm });
  let previous = await readings();
  const start = nowMs();
  let windowStart = start;
  // autocannon splits overallRate into whole requests per connection and second; a connection with 0 would be unlimited.
  const reads = startReads(api.origin, paths, () => token, Math.min(READ_CONNECTIONS, rates.reads_per_s), seconds, rates.reads_per_s, ref);
  const loops = [guard(steadyIngest(feed, rates.points_per_s, () => stop, ref), 'ingestion'), guard(steadyEvents(events, eventsPerS, () => stop, ref), 'event commits')];
  for (let i = 0; i < total && !stop; i++) {
    const wait = start + (i + 1) * options.sampleSeconds * 1000 - nowMs();
    if (wait > 0) await sleep(wait);
    const c = ref.current;
    ref.current = emptyCollector();
    try {
      const taken = await receiver.take();
      c.deliveries = taken.total - lastTotal;
      lastTotal = taken.total;
      const unmatched: Array<[string, number]> = [];
      for (const [id, at] of [...pending, ...taken.entries]) {
        const committed = events.committedAt.get(id);
        if (committed === undefined) unmatched.push([id, at]);
        else c.eventLatenciesMs.push(at - committed);
      }
      pending = unmatched.filter(([id]) => !pending.some(([p]) => p === id)); // a receipt is retried once, then dropped
      assertAlive();
      const current = await readings();
      const end = nowMs();
      const w = summarizeWindow(i, (end - start) / 1000, (end - windowStart) / 1000, i < warm, c, previous, current);
      windows.push(w);
      tally.readErrors += w.read_errors;
      previous = current;
      windowStart = end;
      log(
        `window ${i + 1}/${total}${w.warmup ? ' (warm-up)' : ''}: ${w.reads_per_s.toFixed(0)} reads/s p99 ${w.read_p99_ms ?? '—'} ms, ${w.read_errors} errors; ${w.points_per_s.toFixed(0)} points/s, backlog ${w.ingest_backlog_messages}; ${w.deliveries_per_s.toFixed(0)} deliveries/s, event p99 ${w.event_p99_ms ?? '—'} ms; RSS api ${w.api_rss_mb} MB (heap used ${w.api_heap_used_mb ?? '—'} MB), dispatcher ${w.dispatcher_rss_mb} MB; CPU ${w.api_cpu_pct}/${w.dispatcher_cpu_pct}/${w.services_cpu_pct ?? '—'} %; load ${w.load1}`,
      );
      writeResults({ ...runInfo(), windows, complete: false });
    } catch (error) {
      tally.other.push(`sampling stopped: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      failures.push(error);
      stop = true;
    }
  }
  stop = true;
  reads.stop();
  await Promise.all([reads.done, ...loops]);
  tally.readErrors += ref.current.readNon2xx + ref.current.readErrors; // responses after the last sample

  // ------------------------------------------------------------------------------------- checks
  log('steady run over: waiting for the ingestion queue and the deliveries to drain');
  try {
    await drain(log, DRAIN_TIMEOUT_MS, queued, stored, () => feed.published, () => receiver.count(), () => events.committed * endpoints.length, assertAlive);
    await sleep(3000); // late duplicates would arrive now
    const storedPoints = await stored();
    tally.lostPoints = Math.max(0, feed.published - storedPoints);
    tally.deadLettered = (await channel.checkQueue(topology.deadLetterQueue)).messageCount;
    const counts = await receiver.tally();
    let foreign = 0;
    for (const [id, n] of counts) if (!events.committedAt.has(id)) foreign += n;
    for (const id of events.committedAt.keys()) {
      const n = counts.get(id) ?? 0;
      tally.missingDeliveries += Math.max(0, endpoints.length - n);
      tally.duplicateDeliveries += Math.max(0, n - endpoints.length);
    }
    // The exact account per endpoint (committed = delivered + failed + cancelled + pending, receiver = delivered): a difference fails the run.
    try {
      await checkDeliveryLedger({ db: fixture.db, log }, receiver, endpoints, 'soak');
    } catch (error) {
      tally.other.push(error instanceof Error ? error.message : String(error));
    }
    log(`checked: ${feed.published} points published, ${storedPoints} stored; ${events.committed} events × ${endpoints.length} endpoints, ${[...counts.values()].reduce((a, b) => a + b, 0)} deliveries received${foreign > 0 ? ` (${foreign} for events the soak did not commit)` : ''}`);
  } catch (error) {
    tally.other.push(`final checks failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    failures.push(error);
  }
  for (const error of failures) log(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  if (failures.length > 0) for (const app of [api.process, dispatcher]) if (app.tail()) log(`last output of ${app.name}:\n${app.tail()}`);

  const result = verdict(windows, tally);
  const totals = { points_published: feed.published, events_committed: events.committed, deliveries_expected: events.committed * endpoints.length };
  writeResults({ ...runInfo(), windows, complete: true, totals, tally, verdict: result, peak_rss_mb: { api: api.process.peakRssMb(), dispatcher: dispatcher.peakRssMb() }, duration_s: Math.round((Date.now() - started) / 1000) });
  const title = `Soak: ${options.minutes} min at ${rates.reads_per_s} reads/s, ${rates.points_per_s} points/s, ${rates.deliveries_per_s} deliveries/s (${machine.date.slice(0, 16)} UTC)`;
  writeFileSync(join(resultsDir, 'soak.svg'), renderTimeChart(soakChart(windows, title)));
  process.stdout.write(
    `\n${windowsTable(windows)}\n\n${verdictLines(result)}\n\nCapacity (all loads at once, ${capacity ? `${capacity.seconds} s` : 'not measured: rates given'}): ${capacity ? `${capacity.reads_per_s.toFixed(0)} reads/s, ${capacity.points_per_s.toFixed(0)} points/s, ${capacity.deliveries_per_s.toFixed(0)} deliveries/s` : '—'}. Steady rates: ${rates.reads_per_s} reads/s, ${rates.points_per_s} points/s, ${rates.deliveries_per_s} deliveries/s.\nResults: bench/results/soak.json, chart bench/results/soak.svg\n`,
  );
  if (result.errors > 0) process.exitCode = 1;
}

function writeResults(report: object): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'soak.json'), `${JSON.stringify(report, null, 2)}\n`);
}

/** Waits until the ingestion queue is empty, every published point is stored and every delivery arrived (or the timeout). */
async function drain(
  say: (message: string) => void,
  timeoutMs: number,
  queued: () => Promise<number>,
  stored: () => Promise<number>,
  published: () => number,
  delivered: () => Promise<number>,
  expected: () => number,
  assertAlive: () => void,
): Promise<void> {
  const deadline = nowMs() + timeoutMs;
  for (;;) {
    assertAlive();
    const [q, s, d] = [await queued(), await stored(), await delivered()];
    if (q === 0 && s >= published() && d >= expected()) return;
    if (nowMs() > deadline) {
      say(`drain: gave up after ${timeoutMs / 1000} s: ${q} messages queued, ${s} of ${published()} points stored, ${d} of ${expected()} deliveries`);
      return;
    }
    await sleep(1000);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[soak] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
