import type { Command } from 'commander';
import { loadConfig } from '@app/config';
import { migrateDatabase } from '@app/database';
import { CliError, output } from '../cli-context';

/**
 * The deployment's migration step (the compose file's `migrate` service; an upgrade runs it with
 * the new image before rolling the apps): applies pending migrations under the advisory lock and
 * exits. Running it again applies nothing. Over DATABASE_DIRECT_URL when set (a transaction pooler
 * cannot hold the session lock).
 */
export function registerDatabaseCommands(program: Command): void {
  program
    .command('db:migrate')
    .description('Apply pending schema migrations (under an advisory lock, so concurrent runs migrate once) and exit')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      let applied: string[];
      try {
        // No statement bound (an index on a big table may take long); the advisory lock needs a direct connection.
        applied = await migrateDatabase(config.databaseDirectUrl, config.databaseTimeouts);
      } catch (error) {
        throw new CliError(`migration failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      output(Boolean(options.json), { applied }, applied.length === 0 ? 'Schema up to date: no migration applied.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}.`);
    });
}
