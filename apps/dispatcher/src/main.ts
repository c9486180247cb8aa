import 'reflect-metadata';
import { loadConfigOrExit } from '@app/config';
import { migrateDatabase } from '@app/database';
import { createDispatcherApp } from './dispatcher-app';
import { createLogger } from '@app/observability';

async function main(): Promise<void> {
  const config = loadConfigOrExit('dispatcher');
  const logger = createLogger(config.logLevel, 'dispatcher');
  const applied = await migrateDatabase(config.databaseUrl, config.databaseTimeouts);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  const app = await createDispatcherApp(config, logger);
  // SIGTERM: stop consuming, finish the attempts in flight, close (DispatcherModule.beforeApplicationShutdown).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  // Its only HTTP surface is health and metrics: an operations port, bound like the api's (OPS_HOST).
  await app.listen(config.dispatcherPort, config.opsHost);
  logger.info({ port: config.dispatcherPort, host: config.opsHost, prefix: config.amqpPrefix }, 'dispatcher running');
}

main().catch((error: unknown) => {
  process.stderr.write(`dispatcher: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
