import 'reflect-metadata';
import { loadConfigOrExit } from '@app/config';
import { MigrationLockLostError } from '@app/database';
import { createApiApp } from './bootstrap';
import { OpsServer } from './health/ops-server';
import { createLogger } from '@app/observability';
import { aisTopology, ingestTopology } from '@app/domain';
import { assertEventTopology, checkQueueTopology, eventQueueSettings, ingestQueueSettings, QueueTypeMismatchError, prepareDatabaseAtStart } from '@app/events';
import { assertIngestTopology } from './common/queue/ingest-queue-consumer';

async function main(): Promise<void> {
  const config = loadConfigOrExit('api');
  const logger = createLogger(config.logLevel, 'api');
  // Production refuses at once what would fail later (README "Operations → Start-up checks").
  await prepareDatabaseAtStart('api', config, logger);
  // Refuses to start when a queue exists with another type than AMQP_QUEUE_TYPE (README "Quorum queues").
  await checkQueueTopology(config.amqpUrls, async (channel) => {
    await assertEventTopology(channel, config.amqpPrefix, eventQueueSettings(config));
    if (!config.ingestConsumer) return;
    for (const topology of [ingestTopology(config.amqpPrefix), aisTopology(config.amqpPrefix)]) await assertIngestTopology(channel, topology, ingestQueueSettings(config));
  });
  const app = await createApiApp(config, logger);
  await app.listen(config.port);
  // Metrics and the detailed readiness report: never on the public port (see OpsServer).
  const ops = await app.get(OpsServer).listen(config.opsPort, config.opsHost);
  logger.info({ port: config.port, ops: `${ops.address}:${ops.port}`, docs: `${config.publicBaseUrl}/api/public/v1/docs/` }, 'api listening');
}

main().catch((error: unknown) => {
  if (error instanceof QueueTypeMismatchError || error instanceof MigrationLockLostError) {
    process.stderr.write(`api: refusing to start: ${error.message}\n`);
    process.exit(78); // EX_CONFIG: a configuration problem, not worth restarting for
  }
  process.stderr.write(`api: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
