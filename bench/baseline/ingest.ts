import { readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { planPoints, type GatewayPoint } from '../harness/points';

/**
 * The ingest baseline, run as its own process: the same points as the queue round, loaded the
 * fastest bare way into PostgreSQL this stack has: `COPY … FROM STDIN` (text format, through
 * pg-copy-streams) into a session-local staging table, then one `INSERT … SELECT … ON CONFLICT
 * (device_id, recorded_at) DO NOTHING` into telemetry_points per batch, in one transaction (the
 * staging rows go with the commit). The project has the same conflict rule (a stored point wins,
 * within a batch the first one does). COPY straight into telemetry_points would be faster still,
 * but it cannot skip duplicates: a redelivered message would abort the whole batch. No broker, no
 * validation, no status, no thresholds: the write floor of this PostgreSQL.
 * Job on stdin; prints {ms, cpuSeconds, inserted} as JSON.
 */
interface IngestJob {
  databaseUrl: string;
  deviceIds: string[];
  lifecycleIds: string[];
  fromMs: number;
  perDevice: number;
  batchSize: number;
}

const COLUMNS = 'device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery';

/** One line of COPY text format (tab-separated, \N for null); values are uuids, ISO times and numbers: nothing to escape. */
function copyLine(point: GatewayPoint, lifecycleId: string): string {
  return `${point.device_id}\t${lifecycleId}\t${point.recorded_at}\t${point.latitude}\t${point.longitude}\t${point.temperature}\t${point.humidity}\t${point.light}\t${point.shock}\t${point.battery}\n`;
}

async function main(): Promise<void> {
  const job = JSON.parse(readFileSync(0, 'utf8')) as IngestJob;
  const lifecycleOf = new Map(job.deviceIds.map((id, i) => [id, job.lifecycleIds[i]]));
  const client = new Client({ connectionString: job.databaseUrl, application_name: 'coldchain-bench-baseline-ingest' });
  await client.connect();
  await client.query(`CREATE TEMP TABLE ingest_staging (LIKE telemetry_points INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let inserted = 0;
  let lines: string[] = [];
  const flush = async (): Promise<void> => {
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    await client.query('BEGIN');
    await pipeline(Readable.from([text]), client.query(copyFrom(`COPY ingest_staging (${COLUMNS}) FROM STDIN`)));
    const result = await client.query(
      `INSERT INTO telemetry_points (${COLUMNS}) SELECT ${COLUMNS} FROM ingest_staging ON CONFLICT (device_id, recorded_at) DO NOTHING`,
    );
    await client.query('COMMIT');
    inserted += result.rowCount ?? 0;
  };
  for (const point of planPoints(job)) {
    lines.push(copyLine(point, lifecycleOf.get(point.device_id) ?? '\\N'));
    if (lines.length >= job.batchSize) await flush();
  }
  await flush();
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  await client.end();
  process.stdout.write(`${JSON.stringify({ ms, cpuSeconds: (cpu.user + cpu.system) / 1e6, inserted })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline ingest: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
