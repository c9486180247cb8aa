import 'reflect-metadata';
import { ConfigError, loadConfig } from '@app/config';
import { createApiApp, migrate } from './bootstrap';
import { createLogger } from '@app/observability';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`api: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, 'api');
  const applied = await migrate(config);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  const app = await createApiApp(config, logger);
  await app.listen(config.port);
  logger.info({ port: config.port, docs: `${config.publicBaseUrl}/api/public/v1/docs/` }, 'api listening');
}

main().catch((error: unknown) => {
  process.stderr.write(`api: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
