import { newId } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import type { DomainEventMessage } from '@app/events';
import type { AccountId } from '@app/vocabulary';
import type { NewDelivery } from '../delivery-records';
import type { SignatureFormat } from '../endpoints.types';
import { ATTEMPTS_KEPT_PER_ENDPOINT } from '../retention';
import { WEBHOOK_DELIVERY_QUERIES as Q } from './webhook-deliveries.queries';

// Deliveries: queued, fanned out, claimed by the dispatcher, and their outcomes logged.

/** A delivery the dispatcher holds for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  account_id: AccountId;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: Buffer;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secret_ciphertext: string;
  signature_format: SignatureFormat;
  /** The secret a rotation replaced, while its window runs (it signs Standard Webhooks requests too); else null. */
  previous_secret_ciphertext: string | null;
}

/** What the attempt log records of one attempt (the dispatcher's attempt result has these). */
export interface WebhookAttemptFacts {
  /** X-Service-Delivery-ID of this attempt: the attempt row's id. */
  deliveryId: string;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

export interface WebhookDeliveryBacklog {
  due: number;
  oldestDueAgeSeconds: number;
  disabledEndpoints: number;
}

// ---- Queued by hand, cancelled on disable (EndpointsService) -------------------------------

/** Queues one delivery, due now. Event fan-out has its own bulk insert (`fanOutDeliveries`). */
export async function insertDelivery(db: Db, delivery: NewDelivery): Promise<string> {
  const id = newId();
  await sql.run(db, Q.insertDelivery, [
    delivery.accountId,
    id,
    delivery.endpointId,
    delivery.eventId,
    delivery.eventType,
    delivery.origin,
    delivery.body,
  ]);
  await notifyDeliveryWorkers(db);
  return id;
}

export async function notifyDeliveryWorkers(db: Db): Promise<void> {
  await sql.run(db, Q.notifyDeliveryWorkers);
}

/**
 * Stops an endpoint's pending deliveries (it was disabled). An attempt already in flight finishes
 * and is logged, but cannot reopen its delivery: its update requires status 'pending'.
 */
export function cancelPendingDeliveries(db: Db, accountId: AccountId, endpointId: string): Promise<number> {
  return sql.count(db, Q.cancelPendingDeliveries, [accountId, endpointId]);
}

// ---- The dispatcher ----------------------------------------------------------------------------

/**
 * One delivery per endpoint of each event's account subscribed to its type, for a batch of events
 * in one statement: due now for an enabled endpoint, `skipped` for a disabled one (not sent; shown
 * in the event log, queued by a recovery). Idempotent: a redelivered message finds its rows and
 * adds none. Returns how many deliveries it queued; one NOTIFY per batch wakes the delivery workers
 * of every dispatcher replica.
 */
export async function fanOutDeliveries(db: Db, messages: DomainEventMessage[], notifier = ''): Promise<number> {
  if (messages.length === 0) return 0;
  const row = await sql.first<{ created: number }>(db, Q.fanOutDeliveries, [
    messages.map((m) => m.account_id),
    messages.map((m) => m.envelope.id),
    messages.map((m) => m.envelope.type),
    messages.map((m) => Buffer.from(JSON.stringify(m.envelope))),
    notifier,
  ]);
  return row?.created ?? 0;
}

/** Concurrent attempts a dispatcher process may make, per endpoint and per account (webhook_slot_grants). */
export interface SlotGrants {
  endpoints: ReadonlyMap<string, number>;
  accounts: ReadonlyMap<string, number>;
}

export const NO_SLOT_GRANTS: SlotGrants = { endpoints: new Map(), accounts: new Map() };

/** What a claim takes into account and may take, for the worker `workerId`. */
export interface ClaimRequest {
  workerId: string;
  /** Deliveries to claim at most. */
  limit: number;
  /** Deliveries this process may hold (in flight + claimed ahead) per endpoint, and per account. */
  holdPerEndpoint: number;
  holdPerAccount: number;
  /** What this process holds now (in flight + claimed ahead), per endpoint and per account. */
  inHandEndpoints: ReadonlyMap<string, number>;
  inHandAccounts: ReadonlyMap<string, number>;
  /** The fleet's bounds on concurrent attempts (WEBHOOK_CONCURRENCY_PER_ENDPOINT, _PER_ACCOUNT). */
  perEndpoint: number;
  perAccount: number;
  leaseMs: number;
  /** Where the claim's walk over the endpoints with pending deliveries starts (null: at the start of the ring). */
  after: ClaimPosition | null;
  /** The most endpoints with pending deliveries the claim visits. */
  window: number;
}

/** A place in the ring the claims walk: endpoints ordered by `uuid_hash(endpoint_id)`, then id (migration WebhookClaimRing). */
export interface ClaimPosition {
  ring: number;
  endpointId: string;
}

export interface ClaimResult {
  claimed: ClaimedDelivery[];
  /** This process's grants from now on: at most its attempts in flight may run per key. */
  grants: SlotGrants;
  /** Other live dispatcher processes (0: this one serves alone, and its grants bound nobody else). */
  otherDispatchers: number;
  /** Where the next claim starts: the last endpoint of this claim's window, or null if the walk reached the end of the ring. */
  resumeAfter: ClaimPosition | null;
}

/**
 * A row of the claim: a leased delivery (grant columns null), one of this process's grants
 * (delivery columns null), the `fleet` row whose slots are the other live dispatchers, or the
 * `resume` row: where the next claim's walk starts (key the endpoint, slots its ring hash).
 */
type ClaimRow = ClaimedDelivery & { grant_scope: 'endpoint' | 'account' | 'fleet' | 'resume' | null; grant_key: string | null; grant_slots: number | null };

/**
 * Claims due deliveries of enabled endpoints: at most `holdPerEndpoint` held per endpoint,
 * `holdPerAccount` per account and `limit` in all, shared max-min fairly among the accounts with
 * due work (the account that would hold least goes first; oldest due first within a level),
 * skipping rows another process is claiming. The claim is a lease: `lease_until` (in no index: a
 * HOT update) moves `leaseMs` ahead.
 *
 * Any dispatcher process may serve any account; the fleet's bounds live in the database. Claims of
 * all processes are serialised (a transaction-scoped advisory lock) and each one grants its process
 * per endpoint min(`perEndpoint` − what the other live processes are granted, what it holds), and
 * likewise per account (webhook_slot_grants). The process makes at most its grant of attempts at
 * once per key, so all of them together never exceed the bounds. What the others are granted
 * counts twice against what this process may hold (its reserve is twice its grant). A grant
 * shrinks to what the process holds at each claim and is dropped once it holds nothing of its key;
 * a process that dies is forgotten with its grants when its lease runs out (webhook_dispatchers).
 *
 * One round trip: the steps run in the database function `webhook_claim_deliveries` (migration
 * WebhookClaimFunction), whose commit does not wait for its WAL flush.
 */
export async function claimDueDeliveries(db: Db, request: ClaimRequest): Promise<ClaimResult> {
  const rows = await sql.rows<ClaimRow>(db, Q.claimDueDeliveries, [
    request.workerId,
    request.leaseMs,
    request.limit,
    request.holdPerEndpoint,
    request.holdPerAccount,
    request.perEndpoint,
    request.perAccount,
    [...request.inHandEndpoints.keys()],
    [...request.inHandEndpoints.values()],
    [...request.inHandAccounts.keys()],
    [...request.inHandAccounts.values()],
    request.after?.ring ?? null,
    request.after?.endpointId ?? null,
    request.window,
  ]);
  const claimed: ClaimedDelivery[] = [];
  const grants = { endpoints: new Map<string, number>(), accounts: new Map<string, number>() };
  let otherDispatchers = 0;
  let resumeAfter: ClaimPosition | null = null;
  for (const { grant_scope: scope, grant_key: key, grant_slots: slots, ...delivery } of rows) {
    if (scope === null) claimed.push(delivery);
    else if (scope === 'fleet') otherDispatchers = slots as number;
    else if (scope === 'resume') resumeAfter = key === null ? null : { ring: slots as number, endpointId: key };
    else (scope === 'endpoint' ? grants.endpoints : grants.accounts).set(key as string, slots as number);
  }
  return { claimed, grants, otherDispatchers, resumeAfter };
}

/** The process `workerId` stops: every grant it holds is given up at once. */
export async function retireDispatcher(db: Db, workerId: string): Promise<void> {
  await sql.run(db, Q.retireDispatcher, [workerId]);
}

/** Makes claimed deliveries that were never attempted due again (after `delayMs`), ending their lease early. */
export async function releaseDeliveryClaims(db: Db, deliveries: ClaimedDelivery[], delayMs: number): Promise<void> {
  if (deliveries.length === 0) return;
  await sql.run(db, Q.releaseClaims, [deliveries.map((d) => d.id), deliveries.map((d) => d.attempts), delayMs]);
}

/**
 * Logs successful attempts in one statement (deliveries closed if still this worker's, endpoint
 * failure counts reset, attempts logged). Returns the ids of the deliveries it closed.
 */
export async function recordDeliverySuccesses(db: Db, successes: Array<{ delivery: ClaimedDelivery; result: WebhookAttemptFacts }>): Promise<string[]> {
  if (successes.length === 0) return [];
  const rows = await sql.rows<{ id: string }>(db, Q.recordSuccesses, [
    successes.map((s) => s.delivery.id),
    successes.map((s) => s.delivery.attempts),
    successes.map((s) => s.result.deliveryId),
    successes.map((s) => s.delivery.account_id),
    successes.map((s) => s.delivery.endpoint_id),
    successes.map((s) => s.delivery.event_id),
    successes.map((s) => s.delivery.event_type),
    successes.map((s) => s.result.attemptedAt.toISOString()),
    successes.map((s) => s.result.statusCode),
    successes.map((s) => s.result.error),
    successes.map((s) => s.result.durationMs),
  ]);
  return rows.map((row) => row.id);
}

/** Trims the attempt log of these endpoints to the newest 100 each; returns how many it deleted. */
export async function trimAttemptLog(db: Db, endpointIds: string[]): Promise<number> {
  if (endpointIds.length === 0) return 0;
  const row = await sql.first<{ pruned: number }>(db, Q.trimAttemptLog, [endpointIds, ATTEMPTS_KEPT_PER_ENDPOINT]);
  return row?.pruned ?? 0;
}

/** Counts one more consecutive failure of the endpoint (locking its row); null if it is gone. */
export function countEndpointFailure(db: Db, endpointId: string): Promise<{ consecutive_failures: number; enabled: boolean } | null> {
  return sql.first<{ consecutive_failures: number; enabled: boolean }>(db, Q.countEndpointFailure, [endpointId]);
}

/** Applies a failed attempt to its delivery if it is still this worker's; returns whether it did. */
export async function recordFailedAttempt(
  db: Db,
  delivery: ClaimedDelivery,
  result: WebhookAttemptFacts,
  next: { status: 'succeeded' | 'failed' | 'pending'; nextAttemptAt: Date | null },
): Promise<boolean> {
  const count = await sql.count(db, Q.recordFailedAttempt, [
    delivery.id,
    result.attemptedAt,
    result.statusCode,
    result.error,
    next.status,
    next.nextAttemptAt,
    delivery.attempts,
  ]);
  return count > 0;
}

/** Disables an endpoint that keeps failing; false when it was disabled already. */
export async function disableFailingEndpoint(db: Db, endpointId: string, reason: string): Promise<boolean> {
  return (await sql.count(db, Q.disableFailingEndpoint, [endpointId, reason])) > 0;
}

/** Adds one attempt to the log. */
export async function insertAttempt(db: Db, delivery: ClaimedDelivery, result: WebhookAttemptFacts, outcome: string): Promise<void> {
  await sql.run(db, Q.insertAttempt, [
    result.deliveryId,
    delivery.account_id,
    delivery.endpoint_id,
    delivery.id,
    delivery.event_id,
    delivery.event_type,
    delivery.attempts + 1,
    result.attemptedAt,
    outcome,
    result.statusCode,
    result.error,
    result.durationMs,
  ]);
}

export async function deliveryBacklog(db: Db): Promise<WebhookDeliveryBacklog> {
  const [due, disabled] = await Promise.all([
    sql.first<{ due: string; oldest: Date | null }>(db, Q.dueBacklog),
    sql.first<{ disabled: string }>(db, Q.disabledEndpointCount),
  ]);
  const oldest = due?.oldest;
  return {
    due: Number(due?.due ?? 0),
    oldestDueAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0,
    disabledEndpoints: Number(disabled?.disabled ?? 0),
  };
}
