import { Client } from 'pg';
import { GRID_OFFSET_MS, slotChunks, type GridPlan } from '../scale/plan';
import type { SeededDevice } from './devices';

/**
 * Seeding for `--scale`: the grid of SCALE_DEVICES devices over 24 months, grown in place from one
 * size to the next (only the new slots are inserted), written with generate_series in time order
 * across the devices (as gateways deliver). Every index and constraint of the production schema
 * stays in place (telemetry_points has only its primary key, which ingestion relies on); the
 * seeding sessions only turn off synchronous commit, which changes no result.
 */

/** The grid rows of slots [from, to) that are new at size `index`. $1 first instant (ms), $2 slot width (ms). */
const GROW_GRID = `
  INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
  SELECT d.device_id, d.lifecycle_id, 'epoch'::timestamptz + ($1::float8 + j * $2::float8) * interval '1 millisecond',
         48 + d.k * 0.001 + (j % 5000) * 0.00001, 11 + (j % 7000) * 0.00002,
         5 + 2 * sin(j / 97.0 + d.k), 60 + 10 * cos(j / 131.0 + d.k),
         CASE WHEN j % 720 = 0 THEN 120 ELSE 0 END, 0.05 + 0.04 * sin(j / 7.0), 100 - (j % 10000) * 0.005
    FROM generate_series($3::int, $4::int, $5::int) AS j
   CROSS JOIN unnest($6::uuid[], $7::uuid[]) WITH ORDINALITY AS d(device_id, lifecycle_id, k)
   WHERE $8::int = 0 OR j % $8::int <> 0`;

/** One-minute points of the probe devices in the given windows ($3 starts, $4 minutes each). */
const PROBE_WINDOWS = `
  INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
  SELECT d.device_id, d.lifecycle_id, w.start + i * interval '1 minute',
         52.37 + i * 0.00001, 4.89 + i * 0.00002, 5 + 2 * sin(i / 97.0), 60 + 10 * cos(i / 131.0), 0, 0.05, 90
    FROM unnest($1::uuid[], $2::uuid[]) AS d(device_id, lifecycle_id)
   CROSS JOIN unnest($3::timestamptz[], $4::int[]) AS w(start, minutes)
   CROSS JOIN LATERAL generate_series(0, w.minutes - 1) AS i
  ON CONFLICT (device_id, recorded_at) DO NOTHING`;

async function seedingClient(databaseUrl: string): Promise<Client> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`SET synchronous_commit = off`);
  return client;
}

export interface GrowProgress {
  (done: number, total: number, rows: number): void;
}

/**
 * Grows the grid to size `index` (from size index-1, or from nothing): the new slots in chunks,
 * `parallel` sessions side by side. Returns the rows inserted.
 */
export async function growGrid(
  databaseUrl: string,
  plan: GridPlan,
  index: number,
  devices: readonly SeededDevice[],
  gridStartMs: number,
  progress: GrowProgress,
  parallel = 2,
): Promise<number> {
  if (devices.length !== plan.devices) throw new Error(`the grid needs ${plan.devices} devices, got ${devices.length}`);
  const step = plan.steps[index];
  const previous = index === 0 ? 0 : plan.steps[index - 1];
  // About a million rows per statement at the densest size.
  const chunks = slotChunks(plan, Math.max(step, Math.ceil(1_000_000 / plan.devices / step) * step));
  const deviceIds = devices.map((d) => d.deviceId);
  const lifecycleIds = devices.map((d) => d.lifecycleId);
  let next = 0;
  let done = 0;
  let rows = 0;
  const worker = async (): Promise<void> => {
    const client = await seedingClient(databaseUrl);
    try {
      for (let c = next++; c < chunks.length; c = next++) {
        const [from, to] = chunks[c];
        const first = Math.ceil(from / step) * step;
        if (first >= to) continue;
        const result = await client.query(GROW_GRID, [gridStartMs + GRID_OFFSET_MS, plan.slotMs, first, to - 1, step, deviceIds, lifecycleIds, previous]);
        rows += result.rowCount ?? 0;
        done++;
        progress(done, chunks.length, rows);
      }
    } finally {
      await client.end();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, () => worker()));
  return rows;
}

/** The probe devices' one-minute windows (constant at every size: what the page reads return). */
export async function seedProbeWindows(databaseUrl: string, probes: readonly SeededDevice[], windows: ReadonlyArray<{ start: number; minutes: number }>): Promise<number> {
  const client = await seedingClient(databaseUrl);
  try {
    const result = await client.query(PROBE_WINDOWS, [
      probes.map((p) => p.deviceId),
      probes.map((p) => p.lifecycleId),
      windows.map((w) => new Date(w.start).toISOString()),
      windows.map((w) => w.minutes),
    ]);
    return result.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/** VACUUM (ANALYZE) of every telemetry partition, as after a bulk load in production, then a CHECKPOINT. */
export async function vacuumAnalyze(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`VACUUM (ANALYZE) telemetry_points`);
    // Write the seed's dirty pages out now rather than while the reads are measured (a 40 M-row
    // step leaves gigabytes for the checkpointer and the kernel's writeback).
    await client.query(`CHECKPOINT`);
  } finally {
    await client.end();
  }
}

export interface SizeFacts {
  points: number;
  databaseBytes: number;
  telemetryBytes: number;
  telemetryIndexBytes: number;
}

/** Exact row count and sizes: the database (pg_database_size) and the telemetry partitions with their indexes. */
export async function sizeFacts(databaseUrl: string): Promise<SizeFacts> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM telemetry_points`);
    const sizes = await client.query<{ db: string; total: string; indexes: string }>(
      `SELECT pg_database_size(current_database()) AS db,
              coalesce(sum(pg_total_relation_size(c.oid)), 0) AS total,
              coalesce(sum(pg_indexes_size(c.oid)), 0) AS indexes
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'telemetry_points'::regclass`,
    );
    return {
      points: Number(count.rows[0].n),
      databaseBytes: Number(sizes.rows[0].db),
      telemetryBytes: Number(sizes.rows[0].total),
      telemetryIndexBytes: Number(sizes.rows[0].indexes),
    };
  } finally {
    await client.end();
  }
}
