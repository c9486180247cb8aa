import type { Db } from '@app/database/sql';
import type { WebhookPruneResult } from './retention';
import { pruneClosedDeliveries, pruneDeliveryBodies, pruneHourlyStats, pruneOldAttempts } from './store/webhook-maintenance.repository';

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
  result.attempts = await inBatches(batch, () => pruneOldAttempts(db, batch));
  result.hourlyStats = await inBatches(batch, () => pruneHourlyStats(db, batch));
  result.deliveries = await inBatches(batch, () => pruneClosedDeliveries(db, retentionDays, batch));
  result.bodies = await inBatches(batch, () => pruneDeliveryBodies(db, retentionDays, batch));
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
