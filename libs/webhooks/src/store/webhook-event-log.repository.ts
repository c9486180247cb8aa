import { sql, type Db } from '@app/database/sql';
import type { AccountId, TimeAndId } from '@app/vocabulary';
import type { DeliveryOrigin, DeliveryStatus, EventLogFilter, EventOutcome } from '../delivery-records';
import { WEBHOOK_EVENT_LOG_QUERIES as Q } from './webhook-event-log.queries';
import type { WebhookAttemptRow } from './webhook-endpoints.repository';

/** One event of the log: its first delivery, with the outcome over all of its deliveries. */

export interface EventLogRow {
  delivery_id: string;
  event_id: string;
  event_type: string;
  created_at: Date;
  /** created_at as the database's exact text (microseconds kept): the keyset position. */
  created_at_key: string;
  outcome: EventOutcome;
  endpoints: number;
}

/** The last delivery a page's scan read. */
export interface ScanFrontierRow {
  id: string;
  created_at: Date;
  created_at_key: string;
}

export interface EventLogScan {
  after: TimeAndId | null;
  /** Read towards the start of the list (newer events), oldest first. */
  newer: boolean;
  /** Deliveries read at most. */
  scanLimit: number;
}

const scanParams = (accountId: AccountId, retentionDays: number, filter: EventLogFilter, scan: EventLogScan) =>
  [
    accountId,
    retentionDays,
    filter.type,
    filter.from?.toISOString() ?? null,
    filter.to?.toISOString() ?? null,
    scan.after?.at ?? null,
    scan.after?.id ?? null,
    scan.scanLimit,
    filter.endpoint ?? null,
  ] as const;

/**
 * Up to `limit` events after `scan.after` in the list's order (newest first) — or, `newer`, the
 * events just before it, oldest first (the caller reverses them) — among at most `scanLimit`
 * deliveries.
 */
export function listEventLog(db: Db, accountId: AccountId, retentionDays: number, filter: EventLogFilter, scan: EventLogScan, limit: number): Promise<EventLogRow[]> {
  return sql.rows<EventLogRow>(db, scan.newer ? Q.newerEvents : Q.olderEvents, [...scanParams(accountId, retentionDays, filter, scan), filter.outcome, limit]);
}

/** The `scanLimit`-th delivery of the scan, if there is one (the scan stopped there). */
export function findScanFrontier(db: Db, accountId: AccountId, retentionDays: number, filter: EventLogFilter, scan: EventLogScan): Promise<ScanFrontierRow | null> {
  return sql.first<ScanFrontierRow>(db, scan.newer ? Q.newerScanFrontier : Q.olderScanFrontier, scanParams(accountId, retentionDays, filter, scan));
}

export interface EventDeliveryRow {
  id: string;
  endpoint_id: string;
  endpoint_url: string;
  endpoint_enabled: boolean;
  event_type: string;
  origin: DeliveryOrigin;
  status: DeliveryStatus;
  attempts: number;
  /** Queued by a recovery after an outage. */
  recovered: boolean;
  created_at: Date;
  /** Where the log lists it: its event's time for a recovery's row, else when it was queued. */
  listed_at: Date;
  completed_at: Date | null;
}

/** An attempt of one event: the attempt log's row, with the endpoint instead of the event it repeats. */
export type EventAttemptRow = Omit<WebhookAttemptRow, 'event_id' | 'event_type'> & { endpoint_id: string };

export function findEventDeliveries(db: Db, accountId: AccountId, eventId: string): Promise<EventDeliveryRow[]> {
  return sql.rows<EventDeliveryRow>(db, Q.eventDeliveries, [accountId, eventId]);
}

export async function findEventBody(db: Db, accountId: AccountId, eventId: string): Promise<Buffer | null> {
  return (await sql.first<{ body: Buffer }>(db, Q.eventBody, [accountId, eventId]))?.body ?? null;
}

export function findEventAttempts(db: Db, accountId: AccountId, eventId: string): Promise<EventAttemptRow[]> {
  return sql.rows<EventAttemptRow>(db, Q.eventAttempts, [accountId, eventId]);
}
