import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { pgArray } from '../../libs/domain/src/telemetry/pg-array';
import { planPoints, type GatewayPoint } from '../harness/points';

/**
 * The ingest baseline, run as its own process: the same points as the queue round, written
 * straight into telemetry_points with one multi-row INSERT (arrays unnested server-side) per
 * batch of 2,000, idempotent on (device_id, recorded_at). No broker, no validation, no status,
 * no thresholds: the write floor of this PostgreSQL. Job on stdin; prints {ms, cpuSeconds, inserted} as JSON.
 */
interface IngestJob {
  databaseUrl: string;
  deviceIds: string[];
  lifecycleIds: string[];
  fromMs: number;
  perDevice: number;
  batchSize: number;
}

async function main(): Promise<void> {
  const job = JSON.parse(readFileSync(0, 'utf8')) as IngestJob;
  const lifecycleOf = new Map(job.deviceIds.map((id, i) => [id, job.lifecycleIds[i]]));
  const client = new Client({ connectionString: job.databaseUrl, application_name: 'coldchain-bench-baseline-ingest' });
  await client.connect();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let inserted = 0;
  let batch: GatewayPoint[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    // Array literals joined once, as the project's writer sends them (the fastest way this stack has).
    const column = (pick: (p: GatewayPoint) => string | number | null): string => pgArray(batch.map(pick));
    const result = await client.query(
      `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::float8[], $5::float8[], $6::real[], $7::real[], $8::real[], $9::real[], $10::real[])
       ON CONFLICT (device_id, recorded_at) DO NOTHING`,
      [
        column((p) => p.device_id),
        column((p) => lifecycleOf.get(p.device_id) ?? null),
        column((p) => p.recorded_at),
        column((p) => p.latitude),
        column((p) => p.longitude),
        column((p) => p.temperature),
        column((p) => p.humidity),
        column((p) => p.light),
        column((p) => p.shock),
        column((p) => p.battery),
      ],
    );
    inserted += result.rowCount ?? 0;
    batch = [];
  };
  for (const point of planPoints(job)) {
    batch.push(point);
    if (batch.length >= job.batchSize) await flush();
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
