import { prunePublishedEvents } from '@app/events';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { dropExpiredAuditPartitions, ensureAuditPartitionsAhead } from '@app/database';
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
 * refers to. The audit trail: its monthly partitions for this month and the next two (also at
 * start), so records never land in the default partition, and with AUDIT_RETENTION_DAYS the
 * partitions that ended before it are dropped whole (migration AuditRetention). Safe on several
 * replicas (the deletes are idempotent; partitions are made and dropped under PostgreSQL's locks).
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
    ensureAuditPartitionsAhead(this.dataSource, new Date()).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'audit partitions ahead could not be made; retrying next hour'),
    );
    this.timer = setInterval(() => {
      this.runOnce().catch((error: unknown) => this.logger.warn({ err: error }, 'housekeeping failed; retrying next hour'));
    }, INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async runOnce(now = new Date()): Promise<{
    idempotencyRecords: number;
    outboxEvents: number;
    panelSessions: number;
    webhookAttempts: number;
    webhookDeliveries: number;
    webhookBodies: number;
    webhookHourlyStats: number;
    auditPartitionsDropped: string[];
  }> {
    await ensureAuditPartitionsAhead(this.dataSource, now);
    const retention = this.config.auditRetentionDays;
    const auditPartitionsDropped = retention === null ? [] : await dropExpiredAuditPartitions(this.dataSource, new Date(now.getTime() - retention * 86_400_000));
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
    if (Object.values(counts).some((n) => n > 0) || auditPartitionsDropped.length > 0) this.logger.info({ ...counts, auditPartitionsDropped }, 'housekeeping');
    return { ...counts, auditPartitionsDropped };
  }
}
