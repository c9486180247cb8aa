import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import type { DeliveryOrigin, DeliveryStatus } from '../delivery-records';
import type { SignatureFormat, WebhookAttemptView } from '../endpoints.types';
import type { HourlyStatsRow } from '../health';
import { WEBHOOK_ENDPOINT_QUERIES as Q } from './webhook-endpoints.queries';

// Endpoint management: the api's panel and endpoints, and the CLI (through EndpointsService).

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
  origin: DeliveryOrigin | null;
  recovered: boolean | null;
  delivery_status: DeliveryStatus | null;
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
