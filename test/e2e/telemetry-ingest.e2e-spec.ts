import { DataSource, type Logger } from 'typeorm';
import { loadConfig } from '@app/config';
import { createDataSource, dataSourceOptions, newId } from '@app/database';
import {
  detachDeviceLifecycle,
  defaultIngestCollaborators,
  DeviceAdminService,
  NO_OWNER_REASON,
  raiseAlarm,
  TelemetryIngestService,
  type GeofenceCrossing,
  type IngestCollaborators,
} from '@app/domain';
import { createAccount } from '../support/fixtures';
import { backdateLifecycle, point, registerDevice, setThresholds } from '../support/devices';
import type { AccountId } from '@app/vocabulary';

/** A fixed past hour, so that minutes are easy to read. */
const T0 = new Date('2025-06-02T08:00:00.000Z');
const at = (minutes: number): Date => new Date(T0.getTime() + minutes * 60_000);

describe('Telemetry ingestion service', () => {
  let db: DataSource;
  let accountId: AccountId;
  let ingest: TelemetryIngestService;

  beforeAll(async () => {
    db = createDataSource(loadConfig().databaseUrl, 4);
    await db.initialize();
    accountId = await createAccount(db, 'Ingestion Co');
    ingest = new TelemetryIngestService(db, defaultIngestCollaborators());
  });
  afterAll(() => db.destroy());

  async function device(thresholds?: Record<string, number | null>): Promise<string> {
    const registered = await registerDevice(db, accountId);
    await backdateLifecycle(db, registered.id, at(-24 * 60));
    if (thresholds) await setThresholds(db, registered.id, thresholds);
    return registered.id;
  }

  const countPoints = async (deviceId: string): Promise<number> =>
    (await db.query('SELECT count(*)::int AS n FROM telemetry_points WHERE device_id = $1', [deviceId]))[0].n;
  const alarmsOf = async (deviceId: string): Promise<Array<{ id: string; type: string; message: string; resolved_at: Date | null; triggered_at: Date }>> =>
    db.query('SELECT id, type, message, resolved_at, triggered_at FROM alarms WHERE device_id = $1 ORDER BY created_at, id', [deviceId]);

  describe('storage', () => {
    it('is idempotent per (device, recorded_at), within a call and across calls', async () => {
      const id = await device();
      const points = [point(id, at(0), { temperature: 4 }), point(id, at(1), { temperature: 5 }), point(id, at(0), { temperature: 99 })];
      expect(await ingest.ingest(points)).toMatchObject({ accepted: 2, duplicate: 1, rejected: 0 });
      expect(await ingest.ingest(points)).toMatchObject({ accepted: 0, duplicate: 3, rejected: 0 });
      expect(await countPoints(id)).toBe(2);
      const [first] = await db.query('SELECT temperature FROM telemetry_points WHERE device_id = $1 AND recorded_at = $2', [id, at(0)]);
      expect(first.temperature).toBe(4);
    });

    it('accepts late and out-of-order points', async () => {
      const id = await device();
      await ingest.ingest([point(id, at(30), { temperature: 3 })]);
      expect(await ingest.ingest([point(id, at(10), { temperature: 1 }), point(id, at(20), { temperature: 2 }), point(id, at(5), { temperature: 0.5 })])).toMatchObject({ accepted: 3 });
      const rows = await db.query('SELECT temperature FROM telemetry_points WHERE device_id = $1 ORDER BY recorded_at', [id]);
      expect(rows.map((r: { temperature: number }) => r.temperature)).toEqual([0.5, 1, 2, 3]);
    });

    it('refuses malformed points and points without an owner, naming each by its position', async () => {
      const id = await device();
      const pending = await registerDevice(db, accountId, false);
      const deleted = await registerDevice(db, accountId);
      await db.query('UPDATE devices SET deleted_at = now() WHERE id = $1', [deleted.id]);
      const inputs: unknown[] = [
        point(id, at(0), { temperature: 4 }),
        'not an object',
        { device_id: 'nope', recorded_at: at(0).toISOString() },
        { device_id: id, recorded_at: '2025-06-02T08:00:00' },
        { device_id: id, recorded_at: new Date(Date.now() + 3_600_000).toISOString() },
        point(id, at(1), { temperature: 200 }),
        point(id, at(2), { humidity: '50' as unknown as number }),
        { ...point(id, at(3)), pressure: 1 },
        point(id, at(4), { latitude: 41 }),
        point(newId(), at(5), { temperature: 4 }),
        point(pending.id, new Date(), { temperature: 4 }),
        point(deleted.id, new Date(), { temperature: 4 }),
        point(id, at(-25 * 60), { temperature: 4 }),
        point(id, at(6), { temperature: 4, latitude: 41.01, longitude: 28.97 }),
      ];
      const result = await ingest.ingest(inputs);
      expect(result).toMatchObject({ accepted: 2, duplicate: 0, rejected: 12 });
      expect(result.rejections).toEqual([
        { index: 1, reason: 'a point must be a JSON object' },
        { index: 2, reason: 'device_id must be a UUID' },
        { index: 3, reason: 'recorded_at must be an ISO 8601 timestamp with a time zone' },
        { index: 4, reason: 'recorded_at is in the future' },
        { index: 5, reason: 'temperature must be between -100 and 150' },
        { index: 6, reason: 'humidity must be a number' },
        { index: 7, reason: 'unknown field(s): pressure' },
        { index: 8, reason: 'latitude and longitude come together' },
        { index: 9, reason: NO_OWNER_REASON },
        { index: 10, reason: NO_OWNER_REASON },
        { index: 11, reason: NO_OWNER_REASON },
        { index: 12, reason: NO_OWNER_REASON },
      ]);
    });

    it('refuses a point without owner once; its repetitions in the same call are duplicates', async () => {
      const unknown = newId();
      const id = await device();
      const result = await ingest.ingest([point(unknown, at(0)), point(id, at(0)), point(unknown, at(0)), point(id, at(0)), point(unknown, at(1))]);
      expect(result).toMatchObject({ accepted: 1, duplicate: 2, rejected: 2 });
      expect(result.rejections.map((r) => r.index)).toEqual([0, 4]);
    });

    it('moves the status only by the points it stored, not by duplicates of stored ones', async () => {
      const id = await device();
      await ingest.ingest([point(id, at(10), { battery: 50 })]);
      // at(10) is stored already: its battery reading here is a duplicate and must not win
      expect(await ingest.ingest([point(id, at(5), { battery: 70 }), point(id, at(10), { battery: 99 })])).toMatchObject({ accepted: 1, duplicate: 1 });
      const [status] = await db.query('SELECT last_seen_at, battery, battery_at FROM device_lifecycles WHERE device_id = $1', [id]);
      expect(status).toEqual({ last_seen_at: at(10), battery: 50, battery_at: at(10) });
    });

    it('writes a batch with one INSERT, not one round trip per point', async () => {
      const statements: string[] = [];
      const counting: Logger = {
        logQuery: (query: string) => void statements.push(query),
        logQueryError: () => undefined,
        logQuerySlow: () => undefined,
        logSchemaBuild: () => undefined,
        logMigration: () => undefined,
        log: () => undefined,
      };
      const logged = new DataSource({ ...dataSourceOptions(loadConfig().databaseUrl, 2), logging: ['query'], logger: counting });
      await logged.initialize();
      try {
        const id = await device();
        const points = Array.from({ length: 1500 }, (_, i) => point(id, at(i), { temperature: 4, battery: 80 }));
        expect(await new TelemetryIngestService(logged, defaultIngestCollaborators()).ingest(points)).toMatchObject({ accepted: 1500 });
        expect(statements.filter((q) => q.includes('INSERT INTO telemetry_points'))).toHaveLength(1);
        expect(statements.filter((q) => q.includes('UPDATE device_lifecycles'))).toHaveLength(1);
        expect(statements.length).toBeLessThan(15);
      } finally {
        await logged.destroy();
      }
    });

    it('keeps a late point of an ended lifecycle in that lifecycle, and new points in the new owner’s', async () => {
      const id = await device({ temperature_max: 8 });
      await ingest.ingest([point(id, at(0), { temperature: 4 })]);
      const other = await createAccount(db, 'Next owner');
      const transfer = await new DeviceAdminService(db, detachDeviceLifecycle).transfer(id, other);
      const late = await ingest.ingest([point(id, at(1), { temperature: 50 }), point(id, new Date(), { temperature: 4 })]);
      expect(late).toMatchObject({ accepted: 2, alarms: [] });
      const rows = await db.query('SELECT lifecycle_id FROM telemetry_points WHERE device_id = $1 ORDER BY recorded_at', [id]);
      expect(rows.map((r: { lifecycle_id: string }) => r.lifecycle_id)).toEqual([transfer.previous_lifecycle_id, transfer.previous_lifecycle_id, transfer.lifecycle_id]);
    });
  });

  describe('threshold evaluation', () => {
    it('raises an alarm only once the condition has held for delay_minutes', async () => {
      const id = await device({ temperature_min: 2, temperature_max: 8, delay_minutes: 10 });
      expect((await ingest.ingest([point(id, at(0), { temperature: 9 }), point(id, at(5), { temperature: 9.5 })])).alarms).toEqual([]);
      const raised = await ingest.ingest([point(id, at(10), { temperature: 9.25 })]);
      expect(raised.alarms).toEqual([
        {
          id: expect.any(String),
          device_id: id,
          shipment_id: null,
          type: 'TEMPERATURE',
          severity: 'WARNING',
          source: 'THRESHOLD',
          message: 'Temperature 9.25 °C above the maximum of 8 °C for at least 10 min.',
          resolved: false,
          created_at: expect.any(String),
          resolved_at: null,
        },
      ]);
      expect((await alarmsOf(id))[0].triggered_at).toEqual(at(10));
    });

    it('does not raise for an excursion shorter than the delay', async () => {
      const id = await device({ temperature_max: 8, delay_minutes: 10 });
      const result = await ingest.ingest([5, 9, 9, 4, 9, 9, 4].map((t, i) => point(id, at(i * 4), { temperature: t })));
      expect(result.alarms).toEqual([]);
      expect(await alarmsOf(id)).toEqual([]);
    });

    it('evaluates over the stored points: late points can complete an excursion, and runs reaching past the window count', async () => {
      const late = await device({ temperature_max: 8, delay_minutes: 10 });
      expect((await ingest.ingest([point(late, at(10), { temperature: 9 })])).alarms).toEqual([]);
      expect((await ingest.ingest([point(late, at(0), { temperature: 9 }), point(late, at(5), { temperature: 9 })])).alarms).toHaveLength(1);

      const long = await device({ temperature_max: 8, delay_minutes: 10 });
      await ingest.ingest([point(long, at(0), { temperature: 9 }), point(long, at(1), { temperature: 4 }), point(long, at(4), { temperature: 9 })]);
      await ingest.ingest([point(long, at(8), { humidity: 40 })]); // no temperature: neither breaks nor extends a run
      expect((await ingest.ingest([point(long, at(12), { temperature: 9 })])).alarms).toEqual([]); // 04..12: 8 min
      // 04..15 lasts 11 min although 04 lies before the window [15 - 10, 15 + 10]
      expect((await ingest.ingest([point(long, at(15), { temperature: 9 })])).alarms).toHaveLength(1);
    });

    it('keeps at most one unresolved alarm per (lifecycle, type), and one alarm per excursion', async () => {
      const id = await device({ temperature_max: 8, humidity_max: 70 });
      const first = await ingest.ingest([point(id, at(0), { temperature: 9, humidity: 80 })]);
      expect(first.alarms.map((a) => a.type).sort()).toEqual(['HUMIDITY', 'TEMPERATURE']);
      expect((await ingest.ingest([point(id, at(1), { temperature: 12 }), point(id, at(3), { temperature: 4 }), point(id, at(4), { temperature: 10 })])).alarms).toEqual([]);
      expect(await alarmsOf(id)).toHaveLength(2);

      // resolved while the excursion goes on: no second alarm for the same excursion
      const id2 = await device({ temperature_max: 8 });
      await ingest.ingest([point(id2, at(0), { temperature: 9 })]);
      await db.query('UPDATE alarms SET resolved_at = now() WHERE device_id = $1', [id2]);
      expect((await ingest.ingest([point(id2, at(5), { temperature: 9.5 })])).alarms).toEqual([]);
      // back within limits, then a new excursion: a new alarm
      expect((await ingest.ingest([point(id2, at(10), { temperature: 5 }), point(id2, at(15), { temperature: 11 })])).alarms).toHaveLength(1);
      expect((await alarmsOf(id2)).map((a) => a.resolved_at === null)).toEqual([false, true]);
    });

    it('alarms shock and low battery at once, and ignores sensors that are not in use', async () => {
      const id = await device({ shock_max: 2, battery_min: 20, light_max: 100, delay_minutes: 60 });
      await db.query(`UPDATE device_lifecycles SET sensors = sensors || '{"light": false}' WHERE device_id = $1`, [id]);
      const result = await ingest.ingest([point(id, at(0), { shock: 3.5, battery: 15, light: 5000 })]);
      expect(result.alarms.map((a) => [a.type, a.severity, a.message]).sort()).toEqual([
        ['BATTERY', 'WARNING', 'Battery 15 % below the minimum of 20 %.'],
        ['SHOCK', 'CRITICAL', 'Shock 3.5 g above the maximum of 2 g.'],
      ]);
    });

    it('writes alarm.created to the outbox in the alarm’s own transaction', async () => {
      const id = await device({ temperature_max: 8 });
      const { alarms } = await ingest.ingest([point(id, at(0), { temperature: 30 })]);
      const [alarm] = alarms;
      const [alarmRow] = await db.query('SELECT xmin::text AS tx FROM alarms WHERE id = $1', [alarm.id]);
      const events = await db.query(`SELECT xmin::text AS tx, event_type, account_id, envelope FROM outbox_events WHERE aggregate_id = $1`, [alarm.id]);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ tx: alarmRow.tx, event_type: 'alarm.created', account_id: accountId });
      expect(events[0].envelope).toEqual({ id: expect.any(String), type: 'alarm.created', created_at: expect.any(String), data: alarm });
      expect(Object.keys(events[0].envelope.data).sort()).toEqual(
        ['created_at', 'device_id', 'id', 'message', 'resolved', 'resolved_at', 'severity', 'shipment_id', 'source', 'type'],
      );
    });

    it('writes neither alarm nor outbox event when the transaction rolls back', async () => {
      const id = await device();
      const [{ lifecycle }] = await db.query('SELECT id AS lifecycle FROM device_lifecycles WHERE device_id = $1', [id]);
      await expect(
        db.transaction(async (manager) => {
          const alarm = await raiseAlarm(manager, {
            accountId, deviceId: id, lifecycleId: lifecycle, shipmentId: null, type: 'LIGHT', severity: 'WARNING', source: 'THRESHOLD', message: 'x', triggeredAt: at(0),
          });
          expect(alarm).not.toBeNull();
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await alarmsOf(id)).toEqual([]);
      expect(await db.query(`SELECT 1 FROM outbox_events WHERE envelope->'data'->>'device_id' = $1`, [id])).toEqual([]);

      // a second raise while one is open writes nothing
      const first = await db.transaction((m) => raiseAlarm(m, { accountId, deviceId: id, lifecycleId: lifecycle, shipmentId: 7, type: 'LIGHT', severity: 'WARNING', source: 'DEVICE', message: 'a', triggeredAt: null }));
      const second = await db.transaction((m) => raiseAlarm(m, { accountId, deviceId: id, lifecycleId: lifecycle, shipmentId: 7, type: 'LIGHT', severity: 'WARNING', source: 'DEVICE', message: 'b', triggeredAt: null }));
      expect(first).toMatchObject({ shipment_id: 7, message: 'a' });
      expect(second).toBeNull();
      expect(await db.query(`SELECT 1 FROM outbox_events WHERE envelope->'data'->>'device_id' = $1`, [id])).toHaveLength(1);
    });
  });

  describe('shipments and geofences (through their interfaces)', () => {
    const warehouse = { latitude: 41.0, longitude: 29.0 };

    function collaborators(crossings: GeofenceCrossing[], failSink = false): IngestCollaborators {
      return {
        activeShipments: { activeShipmentId: () => Promise.resolve(4242) },
        geofences: {
          geofencesFor: () =>
            Promise.resolve([
              { id: 'loc-1', name: 'Warehouse', shape: { center: warehouse, radius_m: 500 }, alarmOnEntry: true, alarmOnExit: false },
              {
                id: 'loc-2', name: 'Port', alarmOnEntry: false, alarmOnExit: false,
                shape: { type: 'Polygon' as const, coordinates: [[[28.0, 40.0], [28.1, 40.0], [28.1, 40.1], [28.0, 40.1], [28.0, 40.0]]] },
              },
            ]),
        },
        crossings: {
          record: (_manager, recorded) => {
            if (failSink) return Promise.reject(new Error('sink failed'));
            crossings.push(...recorded);
            return Promise.resolve();
          },
        },
      };
    }

    it('reports crossings and raises GEOFENCE alarms with the active shipment id', async () => {
      const id = await device({ temperature_max: 8 });
      const crossings: GeofenceCrossing[] = [];
      const service = new TelemetryIngestService(db, collaborators(crossings));
      await service.ingest([point(id, at(0), { latitude: 40.05, longitude: 28.05 })]); // in the port: no previous position
      expect(crossings).toEqual([]);
      const result = await service.ingest([
        point(id, at(10), { latitude: 40.5, longitude: 28.5, temperature: 9 }), // left the port
        point(id, at(20), { latitude: 41.001, longitude: 29.001 }), // inside the warehouse circle
      ]);
      expect(crossings.map((c) => [c.geofence.id, c.direction, c.recordedAt.toISOString()])).toEqual([
        ['loc-2', 'exited', at(10).toISOString()],
        ['loc-1', 'entered', at(20).toISOString()],
      ]);
      expect(result.alarms.map((a) => [a.type, a.source, a.severity, a.shipment_id, a.message]).sort()).toEqual([
        ['GEOFENCE', 'GEOFENCE', 'INFO', 4242, 'Entered geofence Warehouse.'],
        ['TEMPERATURE', 'THRESHOLD', 'WARNING', 4242, 'Temperature 9 °C above the maximum of 8 °C.'],
      ]);
    });

    it('rolls the whole batch back (points, status, alarms, events) when a step fails', async () => {
      const id = await device({ temperature_max: 8 });
      const service = new TelemetryIngestService(db, collaborators([], true));
      await service.ingest([point(id, at(0), { latitude: 40.05, longitude: 28.05 })]);
      await expect(service.ingest([point(id, at(10), { latitude: 40.5, longitude: 28.5, temperature: 30 })])).rejects.toThrow('sink failed');
      expect(await countPoints(id)).toBe(1);
      expect(await alarmsOf(id)).toEqual([]);
      expect(await db.query(`SELECT 1 FROM outbox_events WHERE envelope->'data'->>'device_id' = $1`, [id])).toEqual([]);
      const [status] = await db.query('SELECT last_seen_at FROM device_lifecycles WHERE device_id = $1', [id]);
      expect(status.last_seen_at).toEqual(at(0));
    });
  });
});
