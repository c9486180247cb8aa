import type { DataSource } from 'typeorm';
import { newId } from '@app/database';
import type { Db } from '@app/database/sql';
import type { DomainEventMessage } from '@app/events';
import {
  ATTEMPTS_KEPT_PER_ENDPOINT,
  cancelPendingDeliveries,
  claimDueDeliveries,
  countEndpointFailure,
  deliveryBacklog,
  disableFailingEndpoint,
  fanOutDeliveries,
  insertAttempt,
  recordDeliverySuccesses,
  recordFailedAttempt,
  releaseClaimedAccounts,
  releaseDeliveryClaims,
  trimAttemptLog,
  type ClaimedDelivery,
} from '@app/webhooks';
import { AUTO_DISABLE_AFTER_FAILURES, type AttemptOutcome } from './retry-policy';
import type { AttemptResult } from './webhook-sender';
import { toAccountId } from '@app/vocabulary';

/** A delivery this worker holds for one attempt, with what the attempt needs. */
export type { ClaimedDelivery };

/** What follows an attempt: closed, or pending again at `nextAttemptAt`. */
export interface AttemptPlan {
  outcome: AttemptOutcome;
  status: 'succeeded' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
}

export interface RecordedAttempt {
  /** False when the delivery was no longer this worker's (cancelled meanwhile). */
  applied: boolean;
  /** This attempt was the 20th consecutive failure: the endpoint is now disabled. */
  disabledEndpoint: boolean;
}

export { ATTEMPTS_KEPT_PER_ENDPOINT };

/** The dispatcher's data access: fan-out, claiming due deliveries, recording attempts (SQL in @app/webhooks' repository). */
export class DeliveryStore {
  /**
   * This process's name as the owner of the accounts it serves. One dispatcher process at a time
   * serves an account (webhook_claim_owners), so the bounds below, enforced on what this process
   * holds, are the bounds of every replica together.
   */
  readonly workerId = newId();

  constructor(private readonly dataSource: DataSource) {}

  /**
   * One delivery per enabled endpoint of each event's account subscribed to its type, due now, for
   * a batch of events in two statements (endpoints, then one insert for all). Idempotent: a
   * redelivered message finds its rows and adds none. Returns how many it added; one NOTIFY per
   * batch wakes the delivery workers of every dispatcher replica.
   */
  fanOut(messages: DomainEventMessage[]): Promise<number> {
    return fanOutDeliveries(this.dataSource, messages);
  }

  /**
   * Claims due deliveries of enabled endpoints: at most `perEndpoint - busy` per endpoint (so one
   * endpoint's backlog cannot fill every slot), `perAccount - busyAccounts` per account (so one
   * tenant's many endpoints cannot either) and `limit` in all, oldest due first, skipping rows
   * another worker is claiming, and skipping accounts another worker owns; this worker then owns
   * the accounts it claimed, after giving up `released` ones. The claim is a lease: `lease_until`
   * moves `leaseMs` ahead, so a worker that dies mid-attempt leaves the delivery (and its accounts,
   * to the other replicas) due again once the lease runs out. The lease column is in no index, so
   * a claim is a HOT update (no index entries, same page).
   */
  async claimDue(
    limit: number,
    perEndpoint: number,
    busy: Map<string, number>,
    leaseMs: number,
    accounts: { perAccount: number; busyAccounts: Map<string, number>; released?: string[] } = { perAccount: limit, busyAccounts: new Map() },
  ): Promise<ClaimedDelivery[]> {
    return claimDueDeliveries(this.dataSource, this.workerId, limit, perEndpoint, busy, leaseMs, { ...accounts, released: accounts.released ?? [] });
  }

  /** Gives up accounts this worker holds nothing of any more, so other replicas may serve them at once. */
  async releaseAccounts(accountIds: string[]): Promise<void> {
    await releaseClaimedAccounts(this.dataSource, this.workerId, accountIds);
  }

  /** Makes claimed deliveries that were never attempted due again (now, or after `delayMs`), ending their lease early. */
  async releaseClaims(deliveries: ClaimedDelivery[], delayMs = 0): Promise<void> {
    await releaseDeliveryClaims(this.dataSource, deliveries, delayMs);
  }

  /**
   * Logs successful attempts, any number in one statement: each delivery closes as succeeded (if
   * it is still this worker's attempt), its endpoint's consecutive failure count resets, and the
   * attempt joins the log. Returns the ids of the deliveries it closed. Endpoint rows are locked in
   * id order, so concurrent batches and failures (endpoint first, then delivery) cannot deadlock.
   */
  async recordSuccesses(successes: Array<{ delivery: ClaimedDelivery; result: AttemptResult }>): Promise<string[]> {
    return recordDeliverySuccesses(this.dataSource, successes);
  }

  /**
   * Trims the attempt log of these endpoints to the newest 100 each (spec §6.1: the panel shows
   * the last 100), in one statement. Readers never show more than 100 anyway; this only bounds
   * the table, so it runs once per batch of recorded attempts, not once per attempt.
   */
  async pruneAttempts(endpointIds: string[]): Promise<number> {
    return trimAttemptLog(this.dataSource, endpointIds);
  }

  /**
   * Logs a failed attempt (retry or permanent) and applies its consequences atomically: the
   * endpoint's consecutive failure count (the 20th failure disables the endpoint and cancels its
   * pending deliveries) and the delivery's new state. Failures are rare, so one transaction each.
   * A failure may disable the endpoint, so it runs as a transaction that locks the endpoint row
   * before any delivery row, in the same order as `disable`, so the two cannot deadlock.
   */
  async recordFailure(delivery: ClaimedDelivery, result: AttemptResult, plan: AttemptPlan): Promise<RecordedAttempt> {
    return this.dataSource.transaction(async (manager) => {
      const endpoint = await countEndpointFailure(manager, delivery.endpoint_id);
      const reachedLimit = Boolean(endpoint?.enabled) && (endpoint?.consecutive_failures ?? 0) >= AUTO_DISABLE_AFTER_FAILURES;

      const applied = await recordFailedAttempt(manager, delivery, result, plan);

      const disabledEndpoint = reachedLimit ? await this.disableEndpoint(manager, delivery, result) : false;

      await insertAttempt(manager, delivery, result, plan.outcome);
      return { applied, disabledEndpoint };
    });
  }

  async backlog(): Promise<{ due: number; oldestDueAgeSeconds: number; disabledEndpoints: number }> {
    return deliveryBacklog(this.dataSource);
  }

  private async disableEndpoint(manager: Db, delivery: ClaimedDelivery, result: AttemptResult): Promise<boolean> {
    const last = result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'unknown error');
    const reason = `disabled automatically after ${AUTO_DISABLE_AFTER_FAILURES} consecutive failed attempts (last: ${last})`;
    if (!(await disableFailingEndpoint(manager, delivery.endpoint_id, reason))) return false;
    await cancelPendingDeliveries(manager, toAccountId(delivery.account_id), delivery.endpoint_id);
    return true;
  }
}
