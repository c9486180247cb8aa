import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import type { EventLogFilter } from '../delivery-records';
import { HEALTH_STATS_KEPT_HOURS } from '../health';
import { ATTEMPTS_KEPT_PER_ENDPOINT } from '../retention';
import { WEBHOOK_MAINTENANCE_QUERIES as Q } from './webhook-maintenance.queries';

// Maintenance of the webhook history: housekeeping (the api, hourly) and recovery after an outage.

// ---- Housekeeping -----------------------------------------------------------------------------

// One bounded batch each (history-pruning.ts runs them until a batch comes back short); each answers the rows it deleted.

export function pruneOldAttempts(db: Db, batch: number): Promise<number> {
  return sql.count(db, Q.pruneOldAttempts, [ATTEMPTS_KEPT_PER_ENDPOINT, batch]);
}

export function pruneHourlyStats(db: Db, batch: number): Promise<number> {
  return sql.count(db, Q.pruneHourlyStats, [HEALTH_STATS_KEPT_HOURS, batch]);
}

export function pruneClosedDeliveries(db: Db, retentionDays: number, batch: number): Promise<number> {
  return sql.count(db, Q.pruneClosedDeliveries, [retentionDays, batch]);
}

export function pruneDeliveryBodies(db: Db, retentionDays: number, batch: number): Promise<number> {
  return sql.count(db, Q.pruneDeliveryBodies, [retentionDays, batch]);
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

/** How many events `queueRecoveredDeliveries` would queue now from [from, to), counted up to `limit`. */
export async function countRecoverableEvents(db: Db, accountId: AccountId, endpointId: string, from: Date, to: Date, limit: number): Promise<number> {
  return (await sql.first<{ n: number }>(db, Q.countRecoverable, [accountId, endpointId, from, limit, to]))?.n ?? 0;
}

// ---- Bulk resend from the event log (bulk-resend.ts) ---------------------------------------------

const resendParameters = (accountId: AccountId, endpointId: string, retentionDays: number, filter: EventLogFilter, limit: number): [AccountId, ...unknown[]] => [
  accountId,
  endpointId,
  retentionDays,
  filter.type,
  filter.from,
  filter.to,
  filter.outcome,
  limit,
];

/**
 * Queues a `resend` delivery to the endpoint for each event the log lists for it under `filter`
 * (at most `limit`, oldest first; none already waiting to be sent to it); returns how many. Run it
 * after `lockEndpointForRecovery` in the same transaction.
 */
export function queueResends(db: Db, accountId: AccountId, endpointId: string, retentionDays: number, filter: EventLogFilter, limit: number): Promise<number> {
  return sql.count(db, Q.resendMatching, resendParameters(accountId, endpointId, retentionDays, filter, limit));
}

/** How many events `queueResends` would queue now, counted up to `limit`. */
export async function countResendable(db: Db, accountId: AccountId, endpointId: string, retentionDays: number, filter: EventLogFilter, limit: number): Promise<number> {
  return (await sql.first<{ n: number }>(db, Q.countResendable, resendParameters(accountId, endpointId, retentionDays, filter, limit)))?.n ?? 0;
}
