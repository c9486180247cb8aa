import { DataSource } from 'typeorm';
import { newId } from '@app/database';
import { TelemetryPartitions } from '@app/domain';
import { TelemetryRepository } from '@app/domain/telemetry/telemetry.repository';
import { TELEMETRY_QUERIES } from '@app/domain/telemetry/telemetry.queries';
import { CREDENTIAL_QUERIES } from '@app/domain/auth/credentials.queries';
import { DEVICE_QUERIES } from '@app/domain/devices/devices.queries';
import { spyOnStatement } from '../support/statement-spy';
import { API, startApi, type TestApi } from '../support/api';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { backdateLifecycle, ingestService, point, registerDevice } from '../support/devices';
import { presentPoint } from '../../apps/api/src/telemetry/telemetry.presenter';

const HOUR = 3_600_000;
/** A fixed, past, hour-aligned origin keeps the arithmetic below readable. */
const T0 = new Date('2025-03-10T12:00:00.000Z');
const at = (minutes: number): Date => new Date(T0.getTime() + minutes * 60_000);

type Row = { recorded_at: string; temperature: number | null };

describe('GET /devices/{id}/telemetry/', () => {
  let api: TestApi;
  let db: DataSource;
  let tenant: Tenant;

  beforeAll(async () => {
    api = await startApi({ TELEMETRY_MAX_RANGE_DAYS: '7' });
    db = dataSourceOf(api.app);
    tenant = await createTenant(api.app, ['telemetry:read']);
  });
  afterAll(() => api.close());

  async function deviceWithPoints(points: Array<[number, Record<string, number | null>]>, since = at(-10 * 24 * 60)): Promise<string> {
    const device = await registerDevice(db, tenant.accountId);
    await backdateLifecycle(db, device.id, since);
    const ingest = ingestService(db);
    const result = await ingest.ingest(points.map(([minutes, values]) => point(device.id, at(minutes), values)));
    expect(result).toMatchObject({ accepted: points.length, rejected: 0 });
    return device.id;
  }

  const url = (deviceId: string) => `${API}/devices/${deviceId}/telemetry/`;
  const follow = (next: string) => new URL(next).pathname + new URL(next).search;

  it('returns the points of [from, to) in time order, the last 24 hours by default', async () => {
    const now = Date.now();
    const device = await registerDevice(db, tenant.accountId);
    await backdateLifecycle(db, device.id, new Date(now - 3 * 24 * HOUR));
    const recent = [new Date(now - 2 * HOUR), new Date(now - 23 * HOUR), new Date(now - 25 * HOUR)];
    await ingestService(db).ingest(recent.map((t, i) => point(device.id, t, { temperature: i })));
    const res = await api.http.get(url(device.id)).set(tenant.auth).expect(200);
    expect(res.body.data.map((p: Row) => p.temperature)).toEqual([1, 0]);
    expect(res.body.data[0]).toEqual({
      recorded_at: new Date(recent[1].getTime()).toISOString(),
      temperature: 1, humidity: null, light: null, shock: null, battery: null, latitude: null, longitude: null,
    });

    const id = await deviceWithPoints([[0, { temperature: 1 }], [30, { temperature: 2 }], [60, { temperature: 3 }]]);
    const bounded = await api.http.get(url(id)).query({ from: at(0).toISOString(), to: at(60).toISOString() }).set(tenant.auth).expect(200);
    expect(bounded.body.data.map((p: Row) => p.temperature)).toEqual([1, 2]);
    const offset = await api.http.get(url(id)).query({ from: '2025-03-10T13:00:00+01:00', to: '2025-03-10T14:00:01+01:00' }).set(tenant.auth).expect(200);
    expect(offset.body.data.map((p: Row) => p.temperature)).toEqual([1, 2, 3]);
  });

  it('refuses a range over TELEMETRY_MAX_RANGE_DAYS with range_too_large, and malformed parameters with validation_failed', async () => {
    const id = await deviceWithPoints([[0, { temperature: 1 }]]);
    const from = at(-7 * 24 * 60);
    await api.http.get(url(id)).query({ from: from.toISOString(), to: at(0).toISOString() }).set(tenant.auth).expect(200);
    const tooLarge = await api.http.get(url(id)).query({ from: from.toISOString(), to: at(1).toISOString() }).set(tenant.auth).expect(400);
    expect(tooLarge.body).toMatchObject({ code: 'range_too_large', status: 400 });
    const openEnded = await api.http.get(url(id)).query({ from: '2020-01-01T00:00:00Z' }).set(tenant.auth).expect(400);
    expect(openEnded.body.code).toBe('range_too_large');

    for (const query of [
      { from: '2025-03-10T12:00:00' },
      { from: 'yesterday' },
      { to: '2025-02-30T00:00:00Z' },
      { from: at(10).toISOString(), to: at(10).toISOString() },
      { from: at(10).toISOString(), to: at(0).toISOString() },
      { bucket: '2h' },
      { limit: '1001' },
      { limit: '0' },
      { unknown: 'x' },
    ]) {
      const res = await api.http.get(url(id)).query(query).set(tenant.auth).expect(400);
      expect(res.body.code).toBe('validation_failed');
    }
    await api.http.get(url(id)).query({ limit: '1000', from: at(-60).toISOString(), to: at(60).toISOString() }).set(tenant.auth).expect(200);
  });

  it('pages in time order without duplicates or gaps, also when points arrive meanwhile', async () => {
    const id = await deviceWithPoints(Array.from({ length: 250 }, (_, i) => [i, { light: i }] as [number, Record<string, number>]));
    const query = { from: at(-60).toISOString(), to: at(24 * 60).toISOString(), limit: '100' };
    const first = await api.http.get(url(id)).query(query).set(tenant.auth).expect(200);
    expect(first.body.data).toHaveLength(100);
    // a late point before the cursor and a new one after it
    await ingestService(db).ingest([point(id, at(-30), { light: 9999 }), point(id, at(400), { light: 400 })]);
    const seen: Array<Row & { light: number }> = [...first.body.data];
    let next: string | null = first.body.links.next;
    while (next) {
      const page = await api.http.get(follow(next)).set(tenant.auth).expect(200);
      seen.push(...page.body.data);
      next = page.body.links.next;
    }
    const times = seen.map((p) => p.recorded_at);
    expect(new Set(times).size).toBe(times.length);
    expect([...times].sort()).toEqual(times);
    expect(seen.map((p) => p.light)).toEqual([...Array.from({ length: 250 }, (_, i) => i), 400]);
  });

  it('downsamples into UTC-aligned buckets with count and min/avg/max per measurement', async () => {
    // 15-minute buckets from 12:00; range starts 12:05, so the first bucket is clipped.
    const id = await deviceWithPoints([
      [1, { temperature: 9, humidity: 50 }], // before `from`: excluded
      [5, { temperature: 2, humidity: 40, battery: 90 }],
      [7, { temperature: 4.5 }],
      [14, { temperature: 9, battery: 89 }],
      [15, { temperature: -1.5, shock: 0.25 }],
      [29, { temperature: 0.5 }],
      // 12:30-12:45 empty
      [45, { temperature: 3, humidity: 60, light: 120 }],
      [59, { temperature: 8, humidity: 62 }], // `to` is 13:00, so 12:59 is in
      [60, { temperature: 100 }], // excluded
    ]);
    const query = { from: at(5).toISOString(), to: at(60).toISOString(), bucket: '15m' };
    const res = await api.http.get(url(id)).query(query).set(tenant.auth).expect(200);
    expect(res.body.links.next).toBeNull();
    expect(res.body.data).toEqual([
      {
        bucket_start: at(0).toISOString(), bucket_end: at(15).toISOString(), count: 3,
        temperature: { min: 2, avg: 5.167, max: 9 }, // (2 + 4.5 + 9) / 3 = 5.1666…
        humidity: { min: 40, avg: 40, max: 40 },
        light: null, shock: null,
        battery: { min: 89, avg: 89.5, max: 90 },
      },
      {
        bucket_start: at(15).toISOString(), bucket_end: at(30).toISOString(), count: 2,
        temperature: { min: -1.5, avg: -0.5, max: 0.5 },
        humidity: null, light: null, shock: { min: 0.25, avg: 0.25, max: 0.25 }, battery: null,
      },
      { bucket_start: at(30).toISOString(), bucket_end: at(45).toISOString(), count: 0, temperature: null, humidity: null, light: null, shock: null, battery: null },
      {
        bucket_start: at(45).toISOString(), bucket_end: at(60).toISOString(), count: 2,
        temperature: { min: 3, avg: 5.5, max: 8 },
        humidity: { min: 60, avg: 61, max: 62 },
        light: { min: 120, avg: 120, max: 120 }, shock: null, battery: null,
      },
    ]);

    // paging through buckets gives the same buckets
    const paged: Array<{ bucket_start: string; count: number }> = [];
    const firstPage = await api.http.get(url(id)).query({ ...query, limit: '3' }).set(tenant.auth).expect(200);
    paged.push(...firstPage.body.data);
    let next: string | null = firstPage.body.links.next;
    while (next) {
      const page = await api.http.get(follow(next)).set(tenant.auth).expect(200);
      paged.push(...page.body.data);
      next = page.body.links.next;
    }
    expect(paged).toEqual(res.body.data);

    const hourly = await api.http.get(url(id)).query({ from: at(0).toISOString(), to: at(120).toISOString(), bucket: '1h' }).set(tenant.auth).expect(200);
    expect(hourly.body.data.map((b: { count: number }) => b.count)).toEqual([8, 1]);
    expect(hourly.body.data[0].temperature).toEqual({ min: -1.5, avg: 4.313, max: 9 }); // 34.5 / 8 = 4.3125
  });

  it('reads the page through the (device_id, recorded_at) index, never a sequential scan, on a large table', async () => {
    const id = await deviceWithPoints([[0, { temperature: 1 }]]);
    const partitions = new TelemetryPartitions(db);
    await partitions.ensureRange(at(-40 * 24 * 60), at(0));
    // ~300,000 points of 100 other devices over 40 days, plus 20 days of minute data for ours
    await db.query(
      `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, temperature, humidity)
       SELECT d.device_id, d.device_id, ts, 4 + random(), 50
         FROM (SELECT gen_random_uuid() AS device_id FROM generate_series(1, 100)) d
        CROSS JOIN generate_series($1::timestamptz, $2::timestamptz - interval '1 second', interval '20 minutes') AS ts
       ON CONFLICT DO NOTHING`,
      [at(-40 * 24 * 60), at(0)],
    );
    const [{ lifecycle }] = await db.query('SELECT id AS lifecycle FROM device_lifecycles WHERE device_id = $1 AND ended_at IS NULL', [id]);
    await db.query(
      `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, temperature)
       SELECT $1, $2, ts, 5 FROM generate_series($3::timestamptz, $4::timestamptz, interval '1 minute') AS ts ON CONFLICT DO NOTHING`,
      [id, lifecycle, at(-20 * 24 * 60), at(-1)],
    );
    await db.query('ANALYZE telemetry_points');
    const [{ total }] = await db.query('SELECT count(*)::int AS total FROM telemetry_points');
    expect(total).toBeGreaterThan(300_000);

    const repository = new TelemetryRepository(api.app.get(DataSource));
    const scope = { accountId: tenant.accountId, deviceId: id, lifecycleId: lifecycle };
    const plans = [
      repository.pointsQuery(scope, at(-7 * 24 * 60), at(0), null, 101),
      repository.pointsQuery(scope, at(-7 * 24 * 60), at(0), at(-3 * 24 * 60), 1001),
    ];
    // An index scan, or a bitmap scan of the primary key index; only the month in range (pruning).
    const expectMonthIndexScan = (plan: Array<{ Plan: Record<string, unknown> }>): void => {
      const nodes = flatten(plan[0].Plan);
      const onTelemetry = nodes.filter((n) => String(n['Relation Name'] ?? '').startsWith('telemetry_points'));
      expect(onTelemetry.length).toBeGreaterThan(0);
      expect(onTelemetry.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      expect(onTelemetry.map((n) => n['Relation Name'])).toEqual(onTelemetry.map(() => 'telemetry_points_202503'));
      const indexScans = nodes.filter((n) => /^telemetry_points_\d{6}_pkey$/.test(String(n['Index Name'] ?? '')));
      expect(indexScans.length).toBeGreaterThan(0);
    };
    for (const { sql, params } of plans) {
      const [{ 'QUERY PLAN': plan }] = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      expectMonthIndexScan(plan);
    }
    // The page statements run prepared (planned once per connection): their generic plan, the one
    // PostgreSQL keeps after a few runs, must be the same index range scan of the month in range.
    // In one transaction: behind a transaction pooler (npm run test:pgbouncer) that is one server session.
    const runner = api.app.get(DataSource).createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query('SET LOCAL plan_cache_mode = force_generic_plan');
      const bucketWindow = { first: at(-7 * 24 * 60), last: at(-60), from: at(-7 * 24 * 60), to: at(0) };
      const prepared = [...plans, repository.bucketsQuery(scope, 3_600_000, bucketWindow)];
      for (const [n, { sql, params }] of prepared.entries()) {
        await runner.query(`PREPARE generic_page_${n} AS ${sql}`);
        const literals = params.map((value) => `'${String(value).replace(/'/g, "''")}'`).join(', ');
        const [{ 'QUERY PLAN': plan }] = await runner.query(`EXPLAIN (FORMAT JSON) EXECUTE generic_page_${n}(${literals})`);
        expectMonthIndexScan(plan);
      }
      // Only these: the pool's own named statements live on the same connection.
      for (const n of prepared.keys()) await runner.query(`DEALLOCATE generic_page_${n}`);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    const page = await api.http.get(url(id)).query({ from: at(-60).toISOString(), to: at(0).toISOString(), limit: '1000' }).set(tenant.auth).expect(200);
    expect(page.body.data).toHaveLength(60);
  });

  it('writes each point as the pg driver reads it: numbers, nulls, -0, exponents, sub-millisecond times (issue 28: pages packed in PostgreSQL)', async () => {
    const id = await deviceWithPoints([[0, { temperature: 1 }]]);
    const [{ lifecycle }] = await db.query('SELECT id AS lifecycle FROM device_lifecycles WHERE device_id = $1 AND ended_at IS NULL', [id]);
    await db.query(
      `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, temperature, humidity, light, shock, battery, latitude, longitude) VALUES
         ($1, $2, $3::timestamptz + interval '1 second', '-0', 1e-05, 5e-07, 0.1, 21.3, -33.123456789012, 1e-07),
         ($1, $2, $3::timestamptz + interval '2.999999 second', 1.5e20, 3.4e38, NULL, 0.000123, 100, 1e15, -0.0),
         ($1, $2, $3::timestamptz + interval '3.0005 second', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
      [id, lifecycle, at(0).toISOString()],
    );
    const rows = await db.query(
      `SELECT recorded_at, temperature, humidity, light, shock, battery, latitude, longitude FROM telemetry_points WHERE device_id = $1 ORDER BY recorded_at`,
      [id],
    );
    const expected = JSON.parse(JSON.stringify(rows.map(presentPoint)));
    const res = await api.http.get(url(id)).query({ from: at(-1).toISOString(), to: at(1).toISOString(), limit: '2' }).set(tenant.auth).expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body.data).toEqual(expected.slice(0, 2));
    expect(res.text).toBe(JSON.stringify({ data: expected.slice(0, 2), links: { next: res.body.links.next } }));
    const rest = await api.http.get(follow(res.body.links.next)).set(tenant.auth).expect(200);
    expect(rest.body).toEqual({ data: expected.slice(2), links: { next: null } });
  });

  it('runs the credential check, the device lookup and every page as prepared statements (parsed and planned once per connection) unless behind a transaction pooler', async () => {
    const id = await deviceWithPoints([[0, { temperature: 1 }], [1, { temperature: 2 }], [2, { temperature: 3 }]]);
    const dataSource = api.app.get(DataSource);
    const spies = [CREDENTIAL_QUERIES.findByClientId, DEVICE_QUERIES.find, TELEMETRY_QUERIES.packedPoints, TELEMETRY_QUERIES.packedPointsAfter].map((query) =>
      spyOnStatement(dataSource, query),
    );
    try {
      const first = await api.http.get(url(id)).query({ from: at(0).toISOString(), to: at(3).toISOString(), limit: '2' }).set(tenant.auth).expect(200);
      const second = await api.http.get(follow(first.body.links.next)).set(tenant.auth).expect(200);
      expect([...first.body.data, ...second.body.data].map((p: Row) => p.temperature)).toEqual([1, 2, 3]);
      // Behind a transaction pooler (DB_PREPARED_STATEMENTS=false, npm run test:pgbouncer) they run unnamed.
      const prepared = process.env.DB_PREPARED_STATEMENTS !== 'false';
      const names = ['credentials.findByClientId', 'devices.find', 'telemetry.packedPoints', 'telemetry.packedPointsAfter'];
      expect(spies.map((spy) => [...new Set(spy.names)])).toEqual(names.map((name) => [prepared ? name : null]));
    } finally {
      for (const spy of spies) spy.restore();
    }
  });

  it('keeps points of another device out, even with the same timestamps', async () => {
    const a = await deviceWithPoints([[0, { temperature: 1 }]]);
    const b = await deviceWithPoints([[0, { temperature: 2 }]]);
    const res = await api.http.get(url(a)).query({ from: at(-1).toISOString(), to: at(1).toISOString() }).set(tenant.auth).expect(200);
    expect(res.body.data.map((p: Row) => p.temperature)).toEqual([1]);
    expect(b).not.toBe(a);
    expect(newId()).not.toBe(a);
  });
});

function flatten(node: Record<string, unknown>): Array<Record<string, unknown>> {
  const children = (node.Plans as Array<Record<string, unknown>> | undefined) ?? [];
  return [node, ...children.flatMap(flatten)];
}
