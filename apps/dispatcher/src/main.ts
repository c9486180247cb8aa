import 'reflect-metadata';
import { loadConfigOrExit } from '@app/config';
import { MigrationLockLostError } from '@app/database';
import { createDispatcherApp } from './dispatcher-app';
import { createLogger } from '@app/observability';
import { assertEventTopology, checkQueueTopology, eventQueueSettings, QueueTypeMismatchError, prepareDatabaseAtStart } from '@app/events';

async function main(): Promise<void> {
  const config = loadConfigOrExit('dispatcher');
  const logger = createLogger(config.logLevel, 'dispatcher');
  // Production refuses at once what would fail later (README "Operations → Start-up checks").
  await prepareDatabaseAtStart('dispatcher', config, logger);
  // Refuses to start when a queue exists with another type than AMQP_QUEUE_TYPE (README "Quorum queues").
  await checkQueueTopology(config.amqpUrls, (channel) => assertEventTopology(channel, config.amqpPrefix, eventQueueSettings(config)));
  const app = await createDispatcherApp(config, logger);
  // SIGTERM: stop consuming, finish the attempts in flight, close (DispatcherModule.beforeApplicationShutdown).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  // Its only HTTP surface is health and metrics: an operations port, bound like the api's (OPS_HOST).
  await app.listen(config.dispatcherPort, config.opsHost);
  logger.info({ port: config.dispatcherPort, host: config.opsHost, prefix: config.amqpPrefix }, 'dispatcher running');
}

main().catch((error: unknown) => {
  if (error instanceof QueueTypeMismatchError || error instanceof MigrationLockLostError) {
    process.stderr.write(`dispatcher: refusing to start: ${error.message}\n`);
    process.exit(78); // EX_CONFIG: a configuration problem, not worth restarting for
  }
  process.stderr.write(`dispatcher: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
