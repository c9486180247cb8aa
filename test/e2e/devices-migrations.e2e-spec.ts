import { loadConfig } from '@app/config';
import { createDataSource, newId, runMigrationsLocked } from '@app/database';
import { TelemetryPartitions } from '@app/domain';
import { createDatabase, dropDatabase } from '../support/database';
import { uniqueName } from '../support/test-env';

const FEATURE_TABLES = ['alarms', 'device_lifecycles', 'device_maintenance_records', 'devices', 'telemetry_points', 'telemetry_points_default'];

describe('devices, telemetry and alarms migrations', () => {
  it('are reversible', async () => {
    const name = uniqueName('cc_mig');
    const db = createDataSource(await createDatabase(name), 2);
    await db.initialize();
    try {
      const tables = async (): Promise<string[]> =>
        (await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename = ANY($1) ORDER BY tablename`, [FEATURE_TABLES])).map(
          (r: { tablename: string }) => r.tablename,
        );
      await runMigrationsLocked(db);
      expect(await tables()).toEqual(FEATURE_TABLES);
      await new TelemetryPartitions(db).ensure([new Date('2025-01-15T00:00:00Z')]);
      // Undo down to (and including) the first of ours, whatever was appended after it.
      const applied = async (): Promise<string[]> => (await db.query(`SELECT name FROM migrations`)).map((r: { name: string }) => r.name);
      while ((await applied()).includes('Devices1763769800000')) await db.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual([]);
      expect(await db.query(`SELECT 1 FROM pg_proc WHERE proname = 'telemetry_ensure_partition'`)).toEqual([]);
      await runMigrationsLocked(db);
      expect(await tables()).toEqual(FEATURE_TABLES);
    } finally {
      await db.destroy();
      await dropDatabase(name);
    }
  });
});

describe('telemetry_ensure_partition', () => {
  it('creates a month on demand, moving that month’s rows out of the default partition', async () => {
    const db = createDataSource(loadConfig().databaseUrl, 2);
    await db.initialize();
    try {
      const device = newId();
      const inDefault = new Date('2019-02-14T10:00:00Z');
      await db.query(`INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, temperature) VALUES ($1, $1, $2, 4), ($1, $1, $3, 5)`, [
        device,
        inDefault,
        new Date('2019-03-01T00:00:00Z'),
      ]);
      const where = async (at: Date): Promise<string> =>
        (await db.query(`SELECT tableoid::regclass::text AS partition FROM telemetry_points WHERE device_id = $1 AND recorded_at = $2`, [device, at]))[0].partition;
      expect(await where(inDefault)).toBe('telemetry_points_default');

      const [{ created }] = await db.query(`SELECT telemetry_ensure_partition($1) AS created`, [inDefault]);
      expect(created).toBe('telemetry_points_201902');
      expect(await where(inDefault)).toBe('telemetry_points_201902');
      expect(await where(new Date('2019-03-01T00:00:00Z'))).toBe('telemetry_points_default');
      const [{ again }] = await db.query(`SELECT telemetry_ensure_partition($1) AS again`, [new Date('2019-02-28T23:59:59.999Z')]);
      expect(again).toBe('telemetry_points_201902');
      // the key still holds across the partitions
      await db.query(`INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at) VALUES ($1, $1, $2) ON CONFLICT DO NOTHING`, [device, inDefault]);
      expect((await db.query(`SELECT count(*)::int AS n FROM telemetry_points WHERE device_id = $1`, [device]))[0].n).toBe(2);
    } finally {
      await db.destroy();
    }
  });
});
