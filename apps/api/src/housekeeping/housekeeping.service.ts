import { prunePublishedEvents } from '@app/events';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { LOGGER, type AppLogger } from '@app/observability';
import { pruneWebhookHistory } from '@app/webhooks';
import { APP_CONFIG } from '../config/config.module';
import { PanelSessionsRepository } from '../panel/session/panel-sessions.repository';
import { IdempotencyRepository } from '../common/idempotency/idempotency.repository';

const INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5000;

/**
 * Hourly, in small batches so no lock is held long: deletes idempotency records past their 24 h,
 * outbox rows published longer ago than OUTBOX_RETENTION_DAYS, ended panel sessions (sign-in
 * only sweeps its own user's), and webhook history: attempts beyond the last 100 per endpoint,
 * bodies of deliveries closed longer ago than WEBHOOK_RETENTION_DAYS and the rows no kept attempt
 * refers to. Safe on several replicas (the deletes are idempotent).
 */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly idempotency: IdempotencyRepository,
    private readonly panelSessions: PanelSessionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.runOnce().catch((error: unknown) => this.logger.warn({ err: error }, 'housekeeping failed; retrying next hour'));
    }, INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async runOnce(): Promise<{ idempotencyRecords: number; outboxEvents: number; panelSessions: number; webhookAttempts: number; webhookDeliveries: number; webhookBodies: number; webhookHourlyStats: number }> {
    const idempotencyRecords = await this.idempotency.purgeExpired();
    const outboxEvents = await prunePublishedEvents(this.dataSource, this.config.outboxRetentionDays, BATCH);
    const panelSessions = await this.panelSessions.purgeExpired();
    const webhooks = await pruneWebhookHistory(this.dataSource, this.config.webhookRetentionDays, BATCH);
    const counts = {
      idempotencyRecords,
      outboxEvents,
      panelSessions,
      webhookAttempts: webhooks.attempts,
      webhookDeliveries: webhooks.deliveries,
      webhookBodies: webhooks.bodies,
      webhookHourlyStats: webhooks.hourlyStats,
    };
    if (Object.values(counts).some((n) => n > 0)) this.logger.info(counts, 'housekeeping');
    return counts;
  }
}
