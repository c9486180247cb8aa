import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { ingestTopology, parseIngestMessage, TelemetryIngestService } from '@app/domain';
import { IngestQueueConsumer, type ParsedQueueMessage, type QueueIngestBatch } from '../common/queue/ingest-queue-consumer';
import { APP_CONFIG } from '../config/config.module';
import { ReadinessRegistry } from '@app/observability';
import { LOGGER, type AppLogger } from '@app/observability';

/** The gateway adapter of telemetry ingestion (see IngestQueueConsumer). */
@Injectable()
export class TelemetryQueueConsumer extends IngestQueueConsumer {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly ingest: TelemetryIngestService,
    readiness: ReadinessRegistry,
    @Inject(LOGGER) logger: AppLogger,
  ) {
    super(config, readiness, { topology: ingestTopology(config.amqpPrefix), logName: 'TelemetryQueueConsumer', readinessName: 'broker', connectionName: 'coldchain-api-telemetry-ingest', itemNoun: 'point' }, logger);
  }

  protected parse(content: Buffer): ParsedQueueMessage {
    const parsed = parseIngestMessage(content);
    return parsed.ok ? { ok: true, items: parsed.points } : parsed;
  }

  /** Points are validated as their message arrives, while the previous batch is being stored. */
  protected newBatch(): QueueIngestBatch {
    const batch = this.ingest.batch();
    const ingest = this.ingest;
    return {
      add: (items) => batch.add(items),
      get size() {
        return batch.size;
      },
      store: () => ingest.store(batch),
    };
  }
}
