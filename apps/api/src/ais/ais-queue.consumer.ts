import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { AisIngestService, aisTopology, parseAisMessage } from '@app/domain';
import { collectingBatch, IngestQueueConsumer, type ParsedQueueMessage, type QueueIngestBatch } from '../common/queue/ingest-queue-consumer';
import { APP_CONFIG } from '../config/config.module';
import { ReadinessRegistry } from '@app/observability';
import { LOGGER, type AppLogger } from '@app/observability';

/**
 * The AIS feed adapter: vessel positions (one, or `{"positions": [...]}` per message) from
 * `${AMQP_PREFIX}.ais` / `${AMQP_PREFIX}.ais.ingest`, with the telemetry queue's acks, batching and
 * dead-lettering.
 */
@Injectable()
export class AisQueueConsumer extends IngestQueueConsumer {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly ingest: AisIngestService,
    readiness: ReadinessRegistry,
    @Inject(LOGGER) logger: AppLogger,
  ) {
    super(config, readiness, { topology: aisTopology(config.amqpPrefix), logName: 'AisQueueConsumer', readinessName: 'broker_ais', connectionName: 'coldchain-api-ais-ingest', itemNoun: 'position' }, logger);
  }

  protected parse(content: Buffer): ParsedQueueMessage {
    return parseAisMessage(content);
  }

  protected newBatch(): QueueIngestBatch {
    return collectingBatch((items) => this.ingest.ingest(items));
  }
}
