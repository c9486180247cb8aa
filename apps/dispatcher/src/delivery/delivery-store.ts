import type { DataSource } from 'typeorm';
import { newId } from '@app/database';
import { ATTEMPTS_KEPT_PER_ENDPOINT, DeliveryQueue, type ClaimedDelivery, type RecordedFailure } from '@app/webhooks';
import { AUTO_DISABLE_AFTER_FAILURES, type AttemptOutcome } from './retry-policy';
import type { AttemptResult } from './webhook-sender';

/** A delivery this worker holds for one attempt, with what the attempt needs. */
export type { ClaimedDelivery };

/** What follows an attempt: closed, or pending again at `nextAttemptAt`. */
export interface AttemptPlan {
  outcome: AttemptOutcome;
  status: 'succeeded' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
}

export type RecordedAttempt = RecordedFailure;

export { ATTEMPTS_KEPT_PER_ENDPOINT };

/**
 * The dispatcher's hold on the database: its data source, its name as a claimer, and the delivery
 * queue (@app/webhooks' DeliveryQueue) its workers claim from and record into.
 */
export class DeliveryStore {
  /**
   * This process's name as a claimer: its row in webhook_dispatchers and its grants of concurrent
   * attempts per endpoint and account (webhook_slot_grants), which keep the fleet's bounds.
   */
  readonly workerId = newId();
  readonly queue: DeliveryQueue;

  constructor(readonly db: DataSource) {
    this.queue = new DeliveryQueue(db, this.workerId);
  }

  /**
   * Logs a failed attempt (retry or permanent) and applies its consequences atomically (one
   * transaction): the 20th consecutive failure disables the endpoint and cancels its pending
   * deliveries.
   */
  recordFailure(delivery: ClaimedDelivery, result: AttemptResult, plan: AttemptPlan): Promise<RecordedAttempt> {
    const last = result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'unknown error');
    const reason = `disabled automatically after ${AUTO_DISABLE_AFTER_FAILURES} consecutive failed attempts (last: ${last})`;
    return this.queue.recordFailure(delivery, result, plan, { afterFailures: AUTO_DISABLE_AFTER_FAILURES, reason });
  }
}
