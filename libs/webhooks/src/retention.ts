import { execSql, type SqlExecutor } from '@app/database';

/** Spec §6.1 and §8: the panel shows the last 100 attempts of an endpoint; older ones are not kept. */
export const ATTEMPTS_KEPT_PER_ENDPOINT = 100;

export interface WebhookPruneResult {
  /** Attempts beyond the newest 100 of their endpoint. */
  attempts: number;
  /** Closed deliveries past the retention period that no kept attempt points at. */
  deliveries: number;
  /** Bodies deleted from closed deliveries past the retention period (the row stays for the attempt log). */
  bodies: number;
}

/**
 * Bounds the webhook history (run by the api's hourly housekeeping, in batches so no lock is held
 * long; idempotent, safe on several replicas): the attempt log keeps its newest 100 per endpoint;
 * a closed delivery older than `retentionDays` loses its body, and the row itself once no kept
 * attempt refers to it. Pending deliveries are never touched (a CHECK keeps their body). What is
 * left is at most 100 body-less rows per endpoint plus the last `retentionDays` of deliveries.
 */
export async function pruneWebhookHistory(executor: SqlExecutor, retentionDays: number, batch: number): Promise<WebhookPruneResult> {
  const result: WebhookPruneResult = { attempts: 0, deliveries: 0, bodies: 0 };
  result.attempts = await inBatches(
    executor,
    `DELETE FROM webhook_attempts WHERE id IN (
       SELECT id FROM (
         SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY attempted_at DESC, id DESC) AS newest
           FROM webhook_attempts
       ) ranked WHERE newest > $1 LIMIT $2)`,
    [ATTEMPTS_KEPT_PER_ENDPOINT],
    batch,
  );
  result.deliveries = await inBatches(
    executor,
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT d.id FROM webhook_deliveries d
        WHERE d.status <> 'pending' AND d.completed_at < now() - make_interval(days => $1)
          AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.webhook_delivery_id = d.id)
        LIMIT $2)`,
    [retentionDays],
    batch,
  );
  result.bodies = await inBatches(
    executor,
    `UPDATE webhook_deliveries SET body = NULL WHERE id IN (
       SELECT id FROM webhook_deliveries
        WHERE status <> 'pending' AND completed_at < now() - make_interval(days => $1) AND body IS NOT NULL
        LIMIT $2)`,
    [retentionDays],
    batch,
  );
  return result;
}

/** Runs a bounded statement (its last parameter is the batch size) until it affects fewer rows than a batch. */
async function inBatches(executor: SqlExecutor, sql: string, params: unknown[], batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const { count } = await execSql(executor, sql, [...params, batch]);
    total += count;
    if (count < batch) return total;
  }
}
