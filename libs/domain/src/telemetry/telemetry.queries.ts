import { defineQueries } from '@app/database/sql';
import { MEASUREMENTS, type Measurement } from './telemetry-point';

/**
 * recorded_at travels as epoch milliseconds (exact in float8): no ISO formatting or timestamp
 * parsing per row. Nothing comes back per row: when fewer rows were inserted than sent (duplicates
 * of stored points, or repeated within the batch, where the first one wins), the positions of the
 * inserted rows come back as one array, computed only then.
 */
const INSERT_POINTS = `
  WITH inserted AS (
    INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
    SELECT u.device_id, u.lifecycle_id, 'epoch'::timestamptz + u.recorded_ms * interval '1 millisecond',
           u.latitude, u.longitude, u.temperature, u.humidity, u.light, u.shock, u.battery
      FROM unnest($1::uuid[], $2::uuid[], $3::float8[], $4::float8[], $5::float8[], $6::real[], $7::real[], $8::real[], $9::real[], $10::real[])
           AS u(device_id, lifecycle_id, recorded_ms, latitude, longitude, temperature, humidity, light, shock, battery)
    ON CONFLICT (device_id, recorded_at) DO NOTHING
    RETURNING device_id, recorded_at)
  SELECT CASE WHEN (SELECT count(*) FROM inserted) = $11::int THEN NULL
         ELSE (SELECT coalesce(array_agg(f.position ORDER BY f.position), '{}')
                 FROM (SELECT min(k.position)::int AS position
                         FROM unnest($1::uuid[], $3::float8[]) WITH ORDINALITY AS k(device_id, recorded_ms, position)
                         JOIN inserted i ON i.device_id = k.device_id AND i.recorded_at = 'epoch'::timestamptz + k.recorded_ms * interval '1 millisecond'
                        GROUP BY k.device_id, k.recorded_ms) f)
         END AS inserted_positions`;

/**
 * The stored samples of one measurement of a lifecycle ($1 device, $2 lifecycle) in [$3, $4],
 * plus the nearest one on each side. The column comes from the fixed list of measurements: one
 * statement per measurement, written out when this module loads.
 */
const samplesAround = (column: Measurement): string => `
  (SELECT recorded_at, ${column} AS value FROM telemetry_points
    WHERE device_id = $1 AND lifecycle_id = $2 AND recorded_at < $3 AND ${column} IS NOT NULL
    ORDER BY recorded_at DESC LIMIT 1)
  UNION ALL
  (SELECT recorded_at, ${column} FROM telemetry_points
    WHERE device_id = $1 AND lifecycle_id = $2 AND recorded_at >= $3 AND recorded_at <= $4 AND ${column} IS NOT NULL)
  UNION ALL
  (SELECT recorded_at, ${column} FROM telemetry_points
    WHERE device_id = $1 AND lifecycle_id = $2 AND recorded_at > $4 AND ${column} IS NOT NULL
    ORDER BY recorded_at LIMIT 1)
  ORDER BY recorded_at`;

/**
 * Whether an earlier alarm of type $2 of lifecycle $1 (device $4) already covers the excursion
 * around $3: joined to it by samples of the measurement outside [$5, $6] only. One statement per
 * measurement, like samplesAround.
 */
const excursionAlarmed = (column: Measurement): string => `
  SELECT 1 FROM (
      (SELECT triggered_at FROM alarms WHERE lifecycle_id = $1 AND type = $2 AND source = 'THRESHOLD' AND triggered_at <= $3
        ORDER BY triggered_at DESC LIMIT 1)
      UNION ALL
      (SELECT triggered_at FROM alarms WHERE lifecycle_id = $1 AND type = $2 AND source = 'THRESHOLD' AND triggered_at > $3
        ORDER BY triggered_at LIMIT 1)
    ) earlier
    WHERE NOT EXISTS (
      SELECT 1 FROM telemetry_points t
       WHERE t.device_id = $4 AND t.lifecycle_id = $1
         AND t.recorded_at > LEAST(earlier.triggered_at, $3::timestamptz)
         AND t.recorded_at < GREATEST(earlier.triggered_at, $3::timestamptz)
         AND t.${column} IS NOT NULL
         AND NOT (($5::real IS NOT NULL AND t.${column} < $5::real) OR ($6::real IS NOT NULL AND t.${column} > $6::real)))
    LIMIT 1`;

/**
 * A device's points of its lifecycle inside the tenant ($1 account, $2 device, $3 lifecycle),
 * recorded in [$4, $5). The lifecycle id comes from a sub-select bounded by the account, so that
 * even a wrong lifecycle id could not read another tenant's points; the planner runs it once
 * (InitPlan) and scans the (device_id, recorded_at) index of the months in range.
 */
const SCOPED_POINTS = `t.device_id = $2 AND t.lifecycle_id = (SELECT id FROM device_lifecycles WHERE account_id = $1 AND id = $3 AND device_id = $2)
         AND t.recorded_at >= $4 AND t.recorded_at < $5`;

const POINT_COLUMNS = 't.recorded_at, t.temperature, t.humidity, t.light, t.shock, t.battery, t.latitude, t.longitude';

/**
 * A page of points packed into one text value (see packed-points.ts). Per point, one line:
 * whole epoch milliseconds (floored, as the pg driver's Date truncates), '|', then the rest of
 * the point's JSON object after recorded_at — `,"temperature":5.5,…,"longitude":4.89}` — with
 * PostgreSQL's own number text (float4out/float8out, shortest round-trip digits) and `null` for
 * NULL; lines joined by '\n' in time order. The api only formats the time and fixes the rare
 * number PostgreSQL writes differently from JSON.stringify (exponents, -0, NaN, Infinity).
 */
const PACKED_POINT = `concat(floor(extract(epoch FROM p.recorded_at) * 1000)::int8, '|', ${['temperature', 'humidity', 'light', 'shock', 'battery', 'latitude', 'longitude']
  .map((c) => `',"${c}":', coalesce(p.${c}::text, 'null')`)
  .join(', ')}, '}')`;
const packedPage = (after: string): string => `
      SELECT count(*)::int AS count, coalesce(string_agg(${PACKED_POINT}, E'\\n' ORDER BY p.recorded_at), '') AS points
        FROM (SELECT ${POINT_COLUMNS}
                FROM telemetry_points t
               WHERE ${SCOPED_POINTS}${after}
               ORDER BY t.recorded_at
               LIMIT $6) p`;

/** Per-bucket count and min/avg/max of each measurement. */
const BUCKET_STATS = MEASUREMENTS.map((m) => `min(${m}) AS ${m}_min, round(avg(${m})::numeric, 3)::float8 AS ${m}_avg, max(${m}) AS ${m}_max`).join(',\n');
const BUCKET_COLUMNS = MEASUREMENTS.map((m) => `a.${m}_min, a.${m}_avg, a.${m}_max`).join(', ');

export const TELEMETRY_QUERIES = defineQueries({
  owner: 'telemetry',
  tables: ['telemetry_points', 'telemetry_points_default'],
  reads: ['device_lifecycles', 'alarms'],
  tenant: {
    /** The page of points packed into one text value (the api's telemetry read): up to $6 points of [$4, $5). */
    packedPoints: packedPage(''),
    /** The same after the keyset position $7. */
    packedPointsAfter: packedPage(' AND t.recorded_at > $7'),
    /** Every bucket of width $6 from $7 to $8 (empty ones included, count 0), aggregating the points of [$4, $5). */
    buckets: `
      WITH points AS (SELECT t.recorded_at, t.temperature, t.humidity, t.light, t.shock, t.battery FROM telemetry_points t WHERE ${SCOPED_POINTS}),
      aggregated AS (
        SELECT date_bin($6::interval, recorded_at, 'epoch'::timestamptz) AS bucket_start, count(*)::int AS count,
               ${BUCKET_STATS}
          FROM points
         GROUP BY 1)
      SELECT b.bucket_start, COALESCE(a.count, 0) AS count, ${BUCKET_COLUMNS}
        FROM generate_series($7::timestamptz, $8::timestamptz, $6::interval) AS b(bucket_start)
        LEFT JOIN aggregated a ON a.bucket_start = b.bucket_start
       ORDER BY b.bucket_start`,
  },
  platform: {
    /**
     * The monthly partition holding the instant $1, created if missing. The partition name is
     * computed inside the database (telemetry_ensure_partition, created by the TelemetryPoints
     * migration, builds it with format() from the month), so this statement stays static.
     */
    ensurePartition: `SELECT telemetry_ensure_partition($1)`,
    /** Ingestion: one multi-row INSERT per batch, idempotent per (device, recorded_at). */
    insertPoints: INSERT_POINTS,
    /** Ingestion: the alarm types each lifecycle has unresolved. */
    openAlarmTypes: `SELECT lifecycle_id, type FROM alarms WHERE lifecycle_id = ANY($1::uuid[]) AND resolved_at IS NULL`,
    samplesAroundTemperature: samplesAround('temperature'),
    samplesAroundHumidity: samplesAround('humidity'),
    samplesAroundLight: samplesAround('light'),
    samplesAroundShock: samplesAround('shock'),
    samplesAroundBattery: samplesAround('battery'),
    excursionAlarmedTemperature: excursionAlarmed('temperature'),
    excursionAlarmedHumidity: excursionAlarmed('humidity'),
    excursionAlarmedLight: excursionAlarmed('light'),
    excursionAlarmedShock: excursionAlarmed('shock'),
    excursionAlarmedBattery: excursionAlarmed('battery'),
  },
  // Telemetry pages and buckets may lag (README "Read replica"); ingestion and alarms stay on the primary.
  replica: ['packedPoints', 'packedPointsAfter', 'buckets'],
  // One per page of a telemetry read (44 for 30 days at the largest page), and the bucketed read
  // (its planning alone took 3.3–3.8 ms a request): parsed and planned once per connection. All are
  // index range scans of (device_id, recorded_at) whatever the range, with the months outside it
  // pruned when the statement runs (test/e2e/telemetry.e2e-spec.ts checks the generic plans).
  prepared: ['packedPoints', 'packedPointsAfter', 'buckets'],
});
