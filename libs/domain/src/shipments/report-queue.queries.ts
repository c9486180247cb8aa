import { defineQueries } from '@app/database/sql';

/**
 * Completed shipments waiting for their reports: completion enqueues (in its own transaction), the
 * reports family's worker claims, finishes or postpones. Owned here, with completion, so that
 * shipments never imports reports (the reports family builds on shipments).
 */
export const REPORT_QUEUE_QUERIES = defineQueries({
  owner: 'shipment-report-queue',
  tables: ['shipment_report_jobs'],
  tenant: {
    enqueue: `INSERT INTO shipment_report_jobs (account_id, shipment_id) VALUES ($1, $2) ON CONFLICT (shipment_id) DO NOTHING`,
  },
  platform: {
    /** The report worker (any replica): the next due job, locked for this transaction. */
    claimDue: `
      SELECT shipment_id, account_id, attempts FROM shipment_report_jobs WHERE next_attempt_at <= now()
       ORDER BY next_attempt_at, shipment_id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    finish: `DELETE FROM shipment_report_jobs WHERE shipment_id = $1`,
    postpone: `
      UPDATE shipment_report_jobs SET attempts = attempts + 1, last_error = $2, next_attempt_at = now() + make_interval(secs => $3)
       WHERE shipment_id = $1`,
  },
});
