import type { DataSource } from 'typeorm';
import type { Db } from '@app/database/sql';
import type { DomainEventMessage } from '@app/events';
import { toAccountId } from '@app/vocabulary';
import {
  cancelPendingDeliveries,
  claimDueDeliveries,
  countEndpointFailure,
  deliveryBacklog,
  disableFailingEndpoint,
  fanOutDeliveries,
  insertAttempt,
  recordDeliverySuccesses,
  recordFailedAttempt,
  releaseDeliveryClaims,
  retireDispatcher,
  trimAttemptLog,
  type ClaimedDelivery,
  type ClaimRequest,
  type ClaimResult,
  type WebhookAttemptFacts,
  type WebhookDeliveryBacklog,
} from './store/webhook-deliveries.repository';

/**
 * The fewest endpoints a claim's window visits (the dispatcher's is max(limit, this)), so that a
 * refill of a few rows still spans many accounts and their receivers' warm connections. Measured
 * (BENCHMARKS.md, issue 26): with 16, a refill at 1,000 busy endpoints cost 1.23× its cost at 10,
 * but the dispatcher spent a third more CPU per delivery there; with 64 the dispatcher is as before
 * and a claim costs at most its window however many endpoints have work.
 */
const MIN_CLAIM_WINDOW = 64;
/** A round's short claims widen the window, doubling up to 2^this times, so a ring of idle endpoints costs few round trips. */
const MAX_WINDOW_DOUBLINGS = 6;

/**
 * How many endpoints with pending deliveries a claim of `limit` rows visits: max(limit, 64), twice
 * as many after each short claim of the same round (`shortClaims`), up to 64 times as many. The
 * dispatcher's claims and the bench's measure of one claim both ask here.
 */
export function claimWindow(limit: number, shortClaims = 0): number {
  return Math.max(limit, MIN_CLAIM_WINDOW) * 2 ** Math.min(shortClaims, MAX_WINDOW_DOUBLINGS);
}

export type { ClaimedDelivery, ClaimPosition, ClaimRequest, ClaimResult, SlotGrants, WebhookAttemptFacts, WebhookDeliveryBacklog } from './store/webhook-deliveries.repository';
export { NO_SLOT_GRANTS } from './store/webhook-deliveries.repository';

/** A failed attempt's next state: closed (`failed`), or pending again at `nextAttemptAt`. */
export interface FailedAttemptPlan {
  outcome: string;
  status: 'succeeded' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
}

/** When a run of failures disables the endpoint, and the reason it then shows. */
export interface AutoDisable {
  afterFailures: number;
  reason: string;
}

export interface RecordedFailure {
  /** False when the delivery was no longer this worker's (cancelled meanwhile). */
  applied: boolean;
  /** This attempt reached `afterFailures` consecutive failures: the endpoint is now disabled. */
  disabledEndpoint: boolean;
}

/**
 * The delivery queue as the dispatcher sees it: events fanned out into deliveries, deliveries
 * claimed, released and their attempts recorded. The statements are the webhook-deliveries
 * owner's; this is the one way an app reaches them.
 */
export class DeliveryQueue {
  /** `notifier`: the payload of the NOTIFY a fan-out sends (the dispatcher's worker id, so that its own worker can skip it). */
  constructor(
    readonly db: DataSource,
    private readonly notifier = '',
  ) {}

  /** One delivery per subscribed endpoint of each event; answers how many were queued. */
  fanOut(events: DomainEventMessage[]): Promise<number> {
    return fanOutDeliveries(this.db, events, this.notifier);
  }

  claimDue(request: ClaimRequest): Promise<ClaimResult> {
    return claimDueDeliveries(this.db, request);
  }

  /** Hands claimed deliveries back, due again after `delayMs`. */
  release(deliveries: ClaimedDelivery[], delayMs: number): Promise<void> {
    return releaseDeliveryClaims(this.db, deliveries, delayMs);
  }

  /** Drops a stopping dispatcher's row and slot grants. */
  retire(workerId: string): Promise<void> {
    return retireDispatcher(this.db, workerId);
  }

  /** Closes delivered deliveries and logs their attempts (one statement); answers the ids it applied. */
  recordSuccesses(successes: Array<{ delivery: ClaimedDelivery; result: WebhookAttemptFacts }>): Promise<string[]> {
    return recordDeliverySuccesses(this.db, successes);
  }

  /** Keeps the newest attempts of each endpoint's log; answers how many were deleted. */
  trimAttemptLog(endpointIds: string[]): Promise<number> {
    return trimAttemptLog(this.db, endpointIds);
  }

  backlog(): Promise<WebhookDeliveryBacklog> {
    return deliveryBacklog(this.db);
  }

  /**
   * Logs a failed attempt (retry or permanent) and applies its consequences atomically: the
   * endpoint's consecutive failure count (reaching `disable.afterFailures` disables the endpoint
   * and cancels its pending deliveries) and the delivery's new state. Failures are rare, so one
   * transaction each. It locks the endpoint row before any delivery row, in the same order as
   * disabling an endpoint does, so the two cannot deadlock.
   */
  recordFailure(delivery: ClaimedDelivery, result: WebhookAttemptFacts, plan: FailedAttemptPlan, disable: AutoDisable): Promise<RecordedFailure> {
    return this.db.transaction(async (manager) => {
      const endpoint = await countEndpointFailure(manager, delivery.endpoint_id);
      const reachedLimit = Boolean(endpoint?.enabled) && (endpoint?.consecutive_failures ?? 0) >= disable.afterFailures;
      const applied = await recordFailedAttempt(manager, delivery, result, plan);
      const disabledEndpoint = reachedLimit ? await disableEndpoint(manager, delivery, disable.reason) : false;
      await insertAttempt(manager, delivery, result, plan.outcome);
      return { applied, disabledEndpoint };
    });
  }
}

async function disableEndpoint(manager: Db, delivery: ClaimedDelivery, reason: string): Promise<boolean> {
  if (!(await disableFailingEndpoint(manager, delivery.endpoint_id, reason))) return false;
  await cancelPendingDeliveries(manager, toAccountId(delivery.account_id), delivery.endpoint_id);
  return true;
}
