import type { DataSource, EntityManager } from 'typeorm';
import { generateShipmentReports } from './shipment-report';
import type { AccountId } from '@app/vocabulary';

/**
 * Asks for the shipment's report, in the transaction that completes it: the job exists if and
 * only if the completion committed, whoever completed it (API, geofence automation).
 */
export async function enqueueShipmentReport(manager: EntityManager, accountId: AccountId, shipmentId: number): Promise<void> {
  await manager.query(
    `INSERT INTO shipment_report_jobs (shipment_id, account_id) VALUES ($1, $2) ON CONFLICT (shipment_id) DO NOTHING`,
    [shipmentId, accountId],
  );
}

export interface ReportJobsRun {
  generated: number[];
  failed: Array<{ shipmentId: number; error: string }>;
}

interface ReportJob {
  shipment_id: number;
  account_id: AccountId;
  attempts: number;
}

/** Seconds before a failed job is tried again: doubling from 30 s, at most an hour. */
export const retryDelaySeconds = (attempts: number): number => Math.min(3600, 30 * 2 ** Math.min(Math.max(attempts - 1, 0), 7));

/**
 * Generates the reports of due jobs, one job per transaction (FOR UPDATE SKIP LOCKED, so any
 * number of api replicas can run this side by side): the reports are stored and the job deleted
 * together. A failure leaves the job for a later attempt with backoff.
 */
export async function runPendingReportJobs(dataSource: DataSource, limit = 20): Promise<ReportJobsRun> {
  const run: ReportJobsRun = { generated: [], failed: [] };
  for (let i = 0; i < limit; i++) {
    const claimed: { job: ReportJob | null } = { job: null };
    try {
      await dataSource.transaction(async (manager) => {
        const [job] = (await manager.query(
          `SELECT shipment_id, account_id, attempts FROM shipment_report_jobs WHERE next_attempt_at <= now()
            ORDER BY next_attempt_at, shipment_id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        )) as ReportJob[];
        if (!job) return;
        claimed.job = job;
        const existing = (await manager.query(`SELECT 1 FROM reports WHERE account_id = $1 AND shipment_id = $2 LIMIT 1`, [job.account_id, job.shipment_id])) as unknown[];
        if (existing.length === 0) await generateShipmentReports(manager, job.account_id, job.shipment_id);
        await manager.query(`DELETE FROM shipment_report_jobs WHERE shipment_id = $1`, [job.shipment_id]);
      });
    } catch (error) {
      if (!claimed.job) throw error;
      const message = error instanceof Error ? error.message : String(error);
      run.failed.push({ shipmentId: claimed.job.shipment_id, error: message });
      await dataSource.query(
        `UPDATE shipment_report_jobs SET attempts = attempts + 1, last_error = $2, next_attempt_at = now() + make_interval(secs => $3)
          WHERE shipment_id = $1`,
        [claimed.job.shipment_id, message.slice(0, 1000), retryDelaySeconds(claimed.job.attempts + 1)],
      );
      continue;
    }
    if (!claimed.job) break;
    run.generated.push(claimed.job.shipment_id);
  }
  return run;
}
