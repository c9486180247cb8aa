import { newId } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import type { DomainEventMessage } from '@app/events';
import type { AccountId } from '@app/vocabulary';
import type { NewDelivery } from '../delivery-records';
import type { SignatureFormat, WebhookAttemptView } from '../endpoints.types';
import { HEALTH_STATS_KEPT_HOURS, type HourlyStatsRow } from '../health';
import { ATTEMPTS_KEPT_PER_ENDPOINT, type WebhookPruneResult } from '../retention';
import { WEBHOOK_QUERIES as Q } from './webhooks.queries';

/** An endpoint row as the panel and the CLI see it (never the secret). */
export interface WebhookEndpointRow {
  id: string;
  account_id: AccountId;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  consecutive_failures: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
  secret_rotated_at: Date | null;
  signature_format: SignatureFormat;
  /** End of the rotation window in which the replaced secret signs too; null: none (or over when in the past). */
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookAttemptRow {
  id: string;
  webhook_delivery_id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  attempted_at: Date;
  outcome: WebhookAttemptView['outcome'];
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

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

// ---- Endpoints (api, CLI) -------------------------------------------------------------------

export async function accountExists(db: Db, accountId: AccountId): Promise<boolean> {
  return (await sql.count(db, Q.accountExists, [accountId])) > 0;
}

/**
 * Locks the account row (NO KEY UPDATE: foreign-key checks elsewhere are not blocked) for the rest
 * of the transaction, so concurrent registrations of one account cannot pass the cap together.
 */
export async function lockAccountForRegistration(db: Db, accountId: AccountId): Promise<void> {
  await sql.run(db, Q.lockAccountForRegistration, [accountId]);
}

/** How many endpoints the account has, and whether `endpointId` is one of them. */
export async function countEndpoints(db: Db, accountId: AccountId, endpointId: string): Promise<{ n: number; resubmitted: boolean }> {
  return (await sql.first<{ n: number; resubmitted: boolean }>(db, Q.endpointCount, [accountId, endpointId])) ?? { n: 0, resubmitted: false };
}

/** The new endpoint, or null when one with this id exists already. */
export function insertEndpoint(
  db: Db,
  accountId: AccountId,
  endpoint: { id: string; url: string; events: string[]; description: string | null; secretCiphertext: string; signatureFormat: SignatureFormat },
): Promise<WebhookEndpointRow | null> {
  return sql.first<WebhookEndpointRow>(db, Q.insertEndpoint, [
    accountId,
    endpoint.id,
    endpoint.url,
    endpoint.events,
    endpoint.description,
    endpoint.secretCiphertext,
    endpoint.signatureFormat,
  ]);
}

export function listEndpoints(db: Db, accountId: AccountId): Promise<WebhookEndpointRow[]> {
  return sql.rows<WebhookEndpointRow>(db, Q.listEndpoints, [accountId]);
}

export function findEndpoint(db: Db, accountId: AccountId, endpointId: string): Promise<WebhookEndpointRow | null> {
  return sql.first<WebhookEndpointRow>(db, Q.findEndpoint, [accountId, endpointId]);
}

export function updateEndpoint(
  db: Db,
  accountId: AccountId,
  endpointId: string,
  change: { url: string; events: string[]; description: string | null; signatureFormat: SignatureFormat },
): Promise<WebhookEndpointRow | null> {
  return sql.first<WebhookEndpointRow>(db, Q.updateEndpoint, [accountId, endpointId, change.url, change.events, change.description, change.signatureFormat]);
}

/** The new secret is current at once; the replaced one also signs for `windowSeconds` (Standard Webhooks endpoints). */
export function rotateEndpointSecret(
  db: Db,
  accountId: AccountId,
  endpointId: string,
  secretCiphertext: string,
  windowSeconds: number,
): Promise<WebhookEndpointRow | null> {
  return sql.first<WebhookEndpointRow>(db, Q.rotateEndpointSecret, [accountId, endpointId, secretCiphertext, windowSeconds]);
}

export function enableEndpoint(db: Db, accountId: AccountId, endpointId: string): Promise<WebhookEndpointRow | null> {
  return sql.first<WebhookEndpointRow>(db, Q.enableEndpoint, [accountId, endpointId]);
}

/** The endpoint it disabled, or null when it was not enabled (or is not the account's). */
export function disableEndpoint(db: Db, accountId: AccountId, endpointId: string, reason: string): Promise<WebhookEndpointRow | null> {
  return sql.first<WebhookEndpointRow>(db, Q.disableEndpoint, [accountId, endpointId, reason]);
}

/** Deletes the endpoint (its deliveries and attempts go with it); returns how many rows it deleted. */
export function deleteEndpoint(db: Db, accountId: AccountId, endpointId: string): Promise<number> {
  return sql.count(db, Q.deleteEndpoint, [accountId, endpointId]);
}

/** The endpoint's hourly delivery health rows from `since` (an hour start) on, oldest first. */
export function listHourlyStats(db: Db, accountId: AccountId, endpointId: string, since: Date): Promise<HourlyStatsRow[]> {
  return sql.rows<HourlyStatsRow>(db, Q.endpointHourlyStats, [accountId, endpointId, since]);
}

/** Attempts that succeeded and failed per endpoint of the account from `since` on (endpoints without any are absent). */
export function endpointSuccessTotals(db: Db, accountId: AccountId, since: Date): Promise<Array<{ endpoint_id: string; succeeded: number; failed: number }>> {
  return sql.rows<{ endpoint_id: string; succeeded: number; failed: number }>(db, Q.endpointSuccessTotals, [accountId, since]);
}

/** The endpoint's last `limit` attempts, newest first. */
export function listAttempts(db: Db, accountId: AccountId, endpointId: string, limit: number): Promise<WebhookAttemptRow[]> {
  return sql.rows<WebhookAttemptRow>(db, Q.listAttempts, [accountId, endpointId, limit]);
}

/** Platform lookup by the endpoint's globally unique id (ops tooling). */
export async function accountOfEndpoint(db: Db, endpointId: string): Promise<AccountId | null> {
  return (await sql.first<{ account_id: AccountId }>(db, Q.accountOfEndpoint, [endpointId]))?.account_id ?? null;
}

/** The bytes of the event as already sent (bodies first, this endpoint's first), or null. */
export function findSentEventBody(
  db: Db,
  accountId: AccountId,
  eventId: string,
  endpointId: string,
): Promise<{ event_type: string; body: Buffer | null } | null> {
  return sql.first<{ event_type: string; body: Buffer | null }>(db, Q.sentEventBody, [accountId, eventId, endpointId]);
}

// ---- Deliveries ------------------------------------------------------------------------------

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
 * One delivery per enabled endpoint of each event's account subscribed to its type, due now, for
 * a batch of events in two statements (endpoints, then one insert for all). Idempotent: a
 * redelivered message finds its rows and adds none. Returns how many it added; one NOTIFY per
 * batch wakes the delivery workers of every dispatcher replica.
 */
export async function fanOutDeliveries(db: Db, messages: DomainEventMessage[]): Promise<number> {
  if (messages.length === 0) return 0;
  const accounts = [...new Set(messages.map((m) => m.account_id))];
  const endpoints = await sql.rows<{ id: string; account_id: string; events: string[] }>(db, Q.subscribedEndpoints, [accounts]);
  if (endpoints.length === 0) return 0;
  const ids: string[] = [];
  const endpointIds: string[] = [];
  const events: number[] = [];
  messages.forEach((message, index) => {
    for (const endpoint of endpoints) {
      if (endpoint.account_id !== message.account_id || !endpoint.events.includes(message.envelope.type)) continue;
      ids.push(newId());
      endpointIds.push(endpoint.id);
      events.push(index + 1);
    }
  });
  if (ids.length === 0) return 0;
  const row = await sql.first<{ created: number }>(db, Q.fanOutDeliveries, [
    messages.map((m) => m.account_id),
    messages.map((m) => m.envelope.id),
    messages.map((m) => m.envelope.type),
    messages.map((m) => Buffer.from(JSON.stringify(m.envelope))),
    ids,
    endpointIds,
    events,
  ]);
  return row?.created ?? 0;
}

/**
 * Claims due deliveries of enabled endpoints for the worker `workerId`: at most `perEndpoint - busy`
 * per endpoint, `perAccount - busyAccounts` per account and `limit` in all, shared max-min fairly
 * among the accounts with due work (the account that would hold least goes first; oldest due first
 * within a level),
 * skipping rows another worker is claiming, and skipping every account another worker owns (one
 * worker at a time serves an account, so each worker's own bounds are the bounds of all of them
 * together). The worker owns the accounts it claims for as long as the lease, and first gives up
 * `released` (accounts of which it holds nothing any more). The claim is a lease: `lease_until`
 * (in no index: a HOT update) moves `leaseMs` ahead. Claims of all workers are serialised (a
 * transaction-scoped advisory lock), so two of them cannot take one account at the same moment.
 */
export function claimDueDeliveries(
  db: Db,
  workerId: string,
  limit: number,
  perEndpoint: number,
  busy: Map<string, number>,
  leaseMs: number,
  accounts: { perAccount: number; busyAccounts: Map<string, number>; released: string[] },
): Promise<ClaimedDelivery[]> {
  return db.transaction(async (manager) => {
    await sql.run(manager, Q.lockClaims, []);
    if (accounts.released.length > 0) await sql.run(manager, Q.releaseAccounts, [workerId, accounts.released]);
    return sql.rows<ClaimedDelivery>(manager, Q.claimDueDeliveries, [
      [...busy.keys()],
      [...busy.values()],
      perEndpoint,
      limit,
      leaseMs,
      [...accounts.busyAccounts.keys()],
      [...accounts.busyAccounts.values()],
      accounts.perAccount,
      workerId,
    ]);
  });
}

/** The worker `workerId` gives up these accounts (it holds nothing of them any more): other workers may serve them at once. */
export async function releaseClaimedAccounts(db: Db, workerId: string, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await sql.run(db, Q.releaseAccounts, [workerId, accountIds]);
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

// ---- Housekeeping -----------------------------------------------------------------------------

/**
 * Bounds the webhook history (run by the api's hourly housekeeping, in batches so no lock is held
 * long; idempotent, safe on several replicas): the attempt log keeps its newest 100 per endpoint;
 * a closed delivery older than `retentionDays` loses its body, and the row itself once no kept
 * attempt refers to it. Pending deliveries are never touched (a CHECK keeps their body). What is
 * left is at most 100 body-less rows per endpoint plus the last `retentionDays` of deliveries. The
 * hourly delivery health rollup keeps its last 8 days (the panel charts 7).
 */
export async function pruneWebhookHistory(db: Db, retentionDays: number, batch: number): Promise<WebhookPruneResult> {
  const result: WebhookPruneResult = { attempts: 0, deliveries: 0, bodies: 0, hourlyStats: 0 };
  result.attempts = await inBatches(batch, () => sql.count(db, Q.pruneOldAttempts, [ATTEMPTS_KEPT_PER_ENDPOINT, batch]));
  result.hourlyStats = await inBatches(batch, () => sql.count(db, Q.pruneHourlyStats, [HEALTH_STATS_KEPT_HOURS, batch]));
  result.deliveries = await inBatches(batch, () => sql.count(db, Q.pruneClosedDeliveries, [retentionDays, batch]));
  result.bodies = await inBatches(batch, () => sql.count(db, Q.pruneDeliveryBodies, [retentionDays, batch]));
  return result;
}

/** Runs a bounded statement until it affects fewer rows than a batch. */
async function inBatches(batch: number, statement: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await statement();
    total += count;
    if (count < batch) return total;
  }
}

// ---- Recovery after an outage (recovery.ts) --------------------------------------------------------

/** Locks the endpoint row for the rest of the transaction (recoveries of one endpoint queue up); null if it is not the account's. */
export function lockEndpointForRecovery(db: Db, accountId: AccountId, endpointId: string): Promise<{ enabled: boolean; events: string[] } | null> {
  return sql.first<{ enabled: boolean; events: string[] }>(db, Q.lockEndpointForRecovery, [accountId, endpointId]);
}

/** When the delivery that opened the endpoint's current run of failures was queued; null if nothing failed since its last success. */
export async function failingSince(db: Db, accountId: AccountId, endpointId: string): Promise<Date | null> {
  return (await sql.first<{ since: Date | null }>(db, Q.failingSince, [accountId, endpointId]))?.since ?? null;
}

/**
 * Queues, once each and oldest first, at most `limit` events of the endpoint's subscribed types
 * from [from, to) that have no pending or succeeded delivery to it (one INSERT … SELECT); returns
 * how many it queued. Run it after `lockEndpointForRecovery` in the same transaction.
 */
export function queueRecoveredDeliveries(db: Db, accountId: AccountId, endpointId: string, from: Date, to: Date, limit: number): Promise<number> {
  return sql.count(db, Q.recoverDeliveries, [accountId, endpointId, from, limit, to]);
}
