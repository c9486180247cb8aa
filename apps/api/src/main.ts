import 'reflect-metadata';
import { loadConfigOrExit } from '@app/config';
import { migrateDatabase } from '@app/database';
import { createApiApp } from './bootstrap';
import { OpsServer } from './health/ops-server';
import { createLogger } from '@app/observability';

async function main(): Promise<void> {
  const config = loadConfigOrExit('api');
  const logger = createLogger(config.logLevel, 'api');
  const applied = await migrateDatabase(config.databaseUrl, config.databaseTimeouts);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  const app = await createApiApp(config, logger);
  await app.listen(config.port);
  // Metrics and the detailed readiness report: never on the public port (see OpsServer).
  const ops = await app.get(OpsServer).listen(config.opsPort, config.opsHost);
  logger.info({ port: config.port, ops: `${ops.address}:${ops.port}`, docs: `${config.publicBaseUrl}/api/public/v1/docs/` }, 'api listening');
}

main().catch((error: unknown) => {
  process.stderr.write(`api: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
