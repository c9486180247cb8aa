import { createDataSource, MIGRATIONS, runMigrationsLocked } from '@app/database';
import { createDatabase, dropDatabase } from '../support/database';
import { uniqueName } from '../support/test-env';

describe('migrations', () => {
  const name = uniqueName('cc_migrations');
  let url: string;
  beforeAll(async () => {
    url = await createDatabase(name);
  });
  afterAll(() => dropDatabase(name));

  const tables = async (ds: ReturnType<typeof createDataSource>): Promise<string[]> =>
    (await ds.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'migrations' ORDER BY 1`)).map(
      (r: { tablename: string }) => r.tablename,
    );

  it('run up from empty, down to empty, and up again; concurrent runners do not race', async () => {
    const first = createDataSource(url, 2);
    const second = createDataSource(url, 2);
    await Promise.all([first.initialize(), second.initialize()]);
    try {
      const [a, b] = await Promise.all([runMigrationsLocked(first), runMigrationsLocked(second)]);
      expect([...a, ...b].sort()).toEqual(MIGRATIONS.map((m) => m.name).sort());
      const created = await tables(first);
      expect(created).toEqual(expect.arrayContaining(['accounts', 'api_credentials', 'idempotency_records', 'outbox_events']));

      for (let i = 0; i < MIGRATIONS.length; i += 1) await first.undoLastMigration({ transaction: 'each' });
      expect(await tables(first)).toEqual([]);

      await runMigrationsLocked(first);
      expect(await tables(first)).toEqual(created);
    } finally {
      await Promise.all([first.destroy(), second.destroy()]);
    }
  });
});
