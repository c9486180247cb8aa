import { type BeforeApplicationShutdown, type DynamicModule, Inject, Module, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { dataSourceOptions } from '@app/database';
import { eventMessageKey, eventQueueSettings } from '@app/events';
import { DeliveryQueue } from '@app/webhooks';
import { pingDatabase } from '@app/database';
import { EventConsumer } from './consumer/event-consumer';
import { AttemptRecorder } from './delivery/attempt-recorder';
import { ATTEMPTS_KEPT_PER_ENDPOINT, DeliveryStore } from './delivery/delivery-store';
import { DeliveryWorker } from './delivery/delivery-worker';
import { WebhookSender } from './delivery/webhook-sender';
import { DISPATCHER_OPTIONS, type DispatcherOptions } from './dispatcher.tokens';
import { HealthController } from './health/health.controller';
import { ReadinessRegistry } from '@app/observability';
import { LOGGER, type AppLogger } from '@app/observability';
import { DispatcherMetrics } from './observability/metrics';

/**
 * The dispatcher: an event consumer that turns events into deliveries, a delivery worker that
 * sends them, and an HTTP port for health and metrics. Both start on bootstrap; on shutdown both
 * drain (stop taking work, finish what is in hand) before the database pool closes.
 */
@Module({})
export class DispatcherModule implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  static forRoot(config: AppConfig, logger: AppLogger, options: DispatcherOptions = {}): DynamicModule {
    return {
      module: DispatcherModule,
      // Attempts hold a connection only to record their outcome; a quarter of the slots is plenty.
      imports: [TypeOrmModule.forRoot(dataSourceOptions(config.databaseUrl, Math.max(10, Math.ceil(config.webhookConcurrency / 4)), config.databaseTimeouts, config.databaseSession))],
      controllers: [HealthController],
      providers: [
        { provide: DISPATCHER_OPTIONS, useValue: options },
        { provide: LOGGER, useValue: logger },
        { provide: DispatcherMetrics, useFactory: () => new DispatcherMetrics() },
        { provide: ReadinessRegistry, useFactory: () => new ReadinessRegistry() },
        { provide: DeliveryStore, inject: [getDataSourceToken()], useFactory: (dataSource: DataSource) => new DeliveryStore(dataSource) },
        {
          provide: WebhookSender,
          useFactory: () =>
            new WebhookSender({
              timeoutMs: config.webhookTimeoutMs,
              connectTimeoutMs: config.webhookConnectTimeoutMs,
              allowPrivateTargets: config.webhookAllowPrivateTargets,
              // Several endpoints may share an origin; the worker bounds what is in flight per endpoint.
              maxSocketsPerOrigin: config.webhookConcurrency,
              maxIdleSockets: config.webhookMaxIdleSockets,
              ca: options.ca,
              dnsServers: config.webhookDnsServers,
              dnsTimeoutMs: config.webhookDnsTimeoutMs,
            }),
        },
        {
          provide: AttemptRecorder,
          inject: [DeliveryStore],
          useFactory: (store: DeliveryStore) =>
            new AttemptRecorder(store, {
              maxBatch: 500,
              pruneEvery: ATTEMPTS_KEPT_PER_ENDPOINT,
              pruneIntervalMs: 30_000,
              logger: logger.child({ component: 'attempt-recorder' }),
            }),
        },
        {
          provide: DeliveryWorker,
          inject: [DeliveryStore, AttemptRecorder, WebhookSender, DispatcherMetrics],
          useFactory: (store: DeliveryStore, recorder: AttemptRecorder, sender: WebhookSender, metrics: DispatcherMetrics) =>
            new DeliveryWorker(store, recorder, sender, {
              listenUrl: config.databaseDirectUrl,
              secretsKey: config.secretsKey,
              retryScheduleSeconds: config.webhookRetryScheduleSeconds,
              timeoutMs: config.webhookTimeoutMs,
              concurrency: config.webhookConcurrency,
              perEndpoint: config.webhookConcurrencyPerEndpoint,
              perAccount: config.webhookConcurrencyPerAccount,
              pollIntervalMs: config.webhookPollIntervalMs,
              logger: logger.child({ component: 'delivery-worker' }),
              onAttempt: (result, plan) => {
                metrics.attempts.inc({ outcome: plan.outcome });
                metrics.attemptDuration.observe({ outcome: plan.outcome }, result.durationMs / 1000);
                if (plan.status !== 'pending') metrics.deliveriesClosed.inc({ outcome: plan.status });
              },
              onEndpointDisabled: () => metrics.endpointsAutoDisabled.inc(),
              onDeferred: () => metrics.attemptsDeferred.inc(),
              onInFlight: (count) => metrics.inFlight.set(count),
            }),
        },
        {
          provide: EventConsumer,
          inject: [DeliveryWorker, DeliveryStore, DispatcherMetrics],
          useFactory: (worker: DeliveryWorker, store: DeliveryStore, metrics: DispatcherMetrics) =>
            new EventConsumer(store.queue, {
              amqpUrl: config.amqpUrls,
              amqpPrefix: config.amqpPrefix,
              queues: eventQueueSettings(config),
              prefetch: config.webhookPrefetch,
              signingKey: eventMessageKey(config.secretsKey),
              maxMessageBytes: config.eventsMaxMessageBytes,
              logger: logger.child({ component: 'event-consumer' }),
              onDeliveriesCreated: (count) => {
                metrics.deliveriesCreated.inc(count);
                worker.trigger();
              },
              onEvent: (outcome, lag) => {
                metrics.eventsConsumed.inc({ outcome });
                if (lag !== null) metrics.eventLag.observe(lag);
              },
            }),
        },
      ],
      exports: [EventConsumer, DeliveryWorker, DeliveryStore, AttemptRecorder, WebhookSender, ReadinessRegistry, DispatcherMetrics, LOGGER],
    };
  }

  constructor(
    private readonly consumer: EventConsumer,
    private readonly worker: DeliveryWorker,
    private readonly sender: WebhookSender,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: DispatcherMetrics,
    @Inject(getDataSourceToken()) private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  onModuleInit(): void {
    this.readiness.register({ name: 'database', check: () => pingDatabase(this.dataSource) });
    this.readiness.register({
      name: 'broker',
      check: async () => {
        if (!this.consumer.connected) throw new Error('RabbitMQ is not connected');
      },
    });
    const scrapeFailed = (what: string) => (error: unknown) =>
      this.logger.warn({ error: error instanceof Error ? error.message : String(error) }, `metrics: could not read ${what}; reported as NaN`);
    this.metrics.registerBacklog({ backlog: () => new DeliveryQueue(this.dataSource).backlog() }, scrapeFailed('the delivery backlog'));
    this.metrics.registerQueueDepth(() => this.consumer.queueDepth(), scrapeFailed('the event queue depth'));
  }

  onApplicationBootstrap(): void {
    this.consumer.start();
    this.worker.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.logger.info({}, 'draining: no new events or attempts; finishing the ones in flight');
    await this.consumer.stop();
    await this.worker.stop();
    this.sender.close();
    this.logger.info({}, 'drained');
  }
}
