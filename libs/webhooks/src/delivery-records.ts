import { execSql, newId, type SqlExecutor } from '@app/database';
import type { AccountId } from '@app/vocabulary';

/** NOTIFY channel that wakes the dispatcher's delivery worker (it also polls). */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

/** `event`: fan-out of a published event (unique per event and endpoint); `test` and `resend`: by hand. */
export type DeliveryOrigin = 'event' | 'test' | 'resend';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface NewDelivery {
  accountId: AccountId;
  endpointId: string;
  eventId: string;
  eventType: string;
  origin: Exclude<DeliveryOrigin, 'event'>;
  /** The exact bytes every attempt sends. */
  body: Buffer;
}

/** Queues one delivery, due now. Event fan-out has its own bulk insert in the dispatcher. */
export async function insertDelivery(executor: SqlExecutor, delivery: NewDelivery): Promise<string> {
  const id = newId();
  await execSql(
    executor,
    `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', now())`,
    [id, delivery.accountId, delivery.endpointId, delivery.eventId, delivery.eventType, delivery.origin, delivery.body],
  );
  await notifyDeliveryWorkers(executor);
  return id;
}

export async function notifyDeliveryWorkers(executor: SqlExecutor): Promise<void> {
  await execSql(executor, `SELECT pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '')`);
}

/**
 * Stops an endpoint's pending deliveries (it was disabled). An attempt already in flight finishes
 * and is logged, but cannot reopen its delivery: its update requires status 'pending'.
 */
export async function cancelPendingDeliveries(executor: SqlExecutor, accountId: AccountId, endpointId: string): Promise<number> {
  const result = await execSql(
    executor,
    `UPDATE webhook_deliveries
        SET status = 'cancelled', next_attempt_at = NULL, completed_at = now(), updated_at = now()
      WHERE account_id = $1 AND endpoint_id = $2 AND status = 'pending'`,
    [accountId, endpointId],
  );
  return result.count;
}
