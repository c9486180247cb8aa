import 'reflect-metadata';
import { ConfigError, loadConfig } from '@app/config';
import { createDispatcherApp, migrate } from './dispatcher-app';
import { createLogger } from '@app/observability';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`dispatcher: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, 'dispatcher');
  const applied = await migrate(config);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  const app = await createDispatcherApp(config, logger);
  // SIGTERM: stop consuming, finish the attempts in flight, close (DispatcherModule.beforeApplicationShutdown).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(config.dispatcherPort);
  logger.info({ port: config.dispatcherPort, prefix: config.amqpPrefix }, 'dispatcher running');
}

main().catch((error: unknown) => {
  process.stderr.write(`dispatcher: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
