import type { Command } from 'commander';
import { loadConfig } from '@app/config';
import { migrateDatabase } from '@app/database';
import { output } from '../cli-context';

export function registerDatabaseCommands(program: Command): void {
  program
    .command('db:migrate')
    .description('Apply the pending migrations of this build (the migration step before a rolling upgrade); over DATABASE_DIRECT_URL when set')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      // Migrations run without a statement bound (an index on a big table may take long); the lock needs a direct connection.
      const applied = await migrateDatabase(config.databaseDirectUrl, config.databaseTimeouts);
      output(Boolean(options.json), { applied }, applied.length > 0 ? `Applied: ${applied.join(', ')}` : 'The schema is up to date.');
    });
}
