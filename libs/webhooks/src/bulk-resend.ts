import type { DataSource } from 'typeorm';
import { UUID_PATTERN as UUID, type AccountId } from '@app/vocabulary';
import type { EventLogFilter } from './delivery-records';
import { WebhookNotFoundError, WebhookStateError } from './endpoints.errors';
import { notifyDeliveryWorkers } from './store/webhook-deliveries.repository';
import { countResendable, lockEndpointForRecovery, queueResends } from './store/webhook-maintenance.repository';

export interface WebhookBulkResendOptions {
  /** WEBHOOK_RETENTION_DAYS: what the event log lists. */
  retentionDays: number;
  /** WEBHOOK_RECOVERY_MAX_EVENTS: most events one bulk resend queues, as one recovery run. */
  maxEvents: number;
}

export interface WebhookBulkResendCount {
  /** Events a resend would queue now (at most `limit`). */
  count: number;
  limit: number;
  /** More match than one resend queues. */
  more: boolean;
}

export interface WebhookBulkResendResult {
  endpoint_id: string;
  queued: number;
  limit: number;
  /** More matched than one resend queues: running it again queues the next ones. */
  more: boolean;
}

/**
 * Bulk resend from the event log (issue 31 item 4): the events the log lists for one endpoint under
 * its filters (type, outcome there, time range) are queued to it again, once each, as `resend`
 * deliveries — oldest first, at most `maxEvents` per action (the panel counts one action against
 * the company's hourly budget of test events, resends and recoveries). An event already waiting
 * to be sent to the endpoint is not queued again, and bulk resends of one endpoint run one after
 * the other (its row is locked, as for a recovery), so a double click queues nothing twice.
 */
export class WebhookBulkResend {
  constructor(
    private readonly dataSource: DataSource,
    readonly options: WebhookBulkResendOptions,
  ) {}

  /** How many events `resend` would queue now (one statement). */
  async preview(accountId: AccountId, endpointId: string, filter: EventLogFilter): Promise<WebhookBulkResendCount> {
    if (!UUID.test(endpointId)) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    const limit = this.options.maxEvents;
    const count = await countResendable(this.dataSource, accountId, endpointId, this.options.retentionDays, filter, limit + 1);
    return { count: Math.min(count, limit), limit, more: count > limit };
  }

  async resend(accountId: AccountId, endpointId: string, filter: EventLogFilter): Promise<WebhookBulkResendResult> {
    if (!UUID.test(endpointId)) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    const limit = this.options.maxEvents;
    return this.dataSource.transaction(async (manager) => {
      const endpoint = await lockEndpointForRecovery(manager, accountId, endpointId);
      if (!endpoint) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
      if (!endpoint.enabled) throw new WebhookStateError('endpoint_disabled', 'the endpoint is disabled; enable it first');
      const queued = await queueResends(manager, accountId, endpointId, this.options.retentionDays, filter, limit);
      if (queued > 0) await notifyDeliveryWorkers(manager); // heard on commit
      const left = queued < limit ? 0 : await countResendable(manager, accountId, endpointId, this.options.retentionDays, filter, 1);
      return { endpoint_id: endpointId, queued, limit, more: left > 0 };
    });
  }
}
