import { type BeforeApplicationShutdown, type DynamicModule, Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Counter, Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { eventMessageKey, eventQueueSettings } from '@app/events';
import { APP_CONFIG } from '../config/config.module';
import { ReadinessRegistry } from '@app/observability';
import type { AppLogger } from '@app/observability';
import { Metrics } from '../observability/metrics';
import { OutboxRelay } from './outbox-relay';
import { outboxBacklog } from '@app/events';

/**
 * The outbox relay of this api replica: started on bootstrap unless OUTBOX_RELAY=off, stopped
 * (after its running pass) on shutdown; adds the `broker` readiness check and outbox metrics.
 */
@Module({})
export class OutboxModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  static forRoot(logger: AppLogger): DynamicModule {
    return {
      module: OutboxModule,
      providers: [
        {
          provide: OutboxRelay,
          inject: [getDataSourceToken(), APP_CONFIG, Metrics],
          useFactory: (dataSource: DataSource, config: AppConfig, metrics: Metrics) => {
            const published = new Counter({
              name: 'outbox_events_published_total',
              help: 'Outbox events published to RabbitMQ and confirmed',
              registers: [metrics.registry],
            });
            return new OutboxRelay(dataSource, {
              listenUrl: config.databaseDirectUrl,
              amqpUrl: config.amqpUrls,
              amqpPrefix: config.amqpPrefix,
              queues: eventQueueSettings(config),
              pollIntervalMs: config.outboxPollIntervalMs,
              confirmTimeoutMs: config.outboxConfirmTimeoutMs,
              signingKey: eventMessageKey(config.secretsKey),
              logger: logger.child({ component: 'outbox-relay' }),
              onPublished: (count) => published.inc(count),
            });
          },
        },
      ],
      exports: [OutboxRelay],
    };
  }

  constructor(
    private readonly relay: OutboxRelay,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(getDataSourceToken()) private readonly dataSource: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.outboxRelayEnabled) return;
    this.registerBacklogGauges();
    this.readiness.register({
      name: 'broker',
      check: async () => {
        if (!this.relay.connected) throw new Error('RabbitMQ is not connected');
      },
    });
    this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }

  private registerBacklogGauges(): void {
    const dataSource = this.dataSource;
    let last: Promise<{ unpublished: number; oldestAgeSeconds: number }> | null = null;
    // One query per scrape for both gauges; a failing database reports NaN rather than failing /metrics.
    const backlog = () =>
      (last ??= outboxBacklog(dataSource.manager)
        .catch(() => ({ unpublished: Number.NaN, oldestAgeSeconds: Number.NaN }))
        .finally(() => setImmediate(() => (last = null))));
    new Gauge({
      name: 'outbox_events_unpublished',
      help: 'Outbox events waiting to be published',
      registers: [this.metrics.registry],
      async collect() {
        this.set((await backlog()).unpublished);
      },
    });
    new Gauge({
      name: 'outbox_oldest_unpublished_age_seconds',
      help: 'Age of the oldest unpublished outbox event (publish lag)',
      registers: [this.metrics.registry],
      async collect() {
        this.set((await backlog()).oldestAgeSeconds);
      },
    });
  }
}
