import type { Command } from 'commander';
import { seedDemo } from '../demo/demo-seed';
import { output, withContext } from '../cli-context';

export function registerDemoCommands(program: Command): void {
  program
    .command('demo:seed')
    .description('Create the demo tenant (idempotent) and print its fixture document')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      await withContext(async ({ config, dataSource }) => {
        const fixture = await seedDemo(dataSource, config.secretsKey, config.publicBaseUrl);
        const single = fixture.credentials.single;
        output(
          Boolean(options.json),
          fixture,
          `Demo tenant ready.\nclient_id:     ${single.client_id}\nclient_secret: ${single.client_secret}\nAPI:           ${fixture.base_url}/`,
        );
      });
    });
}
