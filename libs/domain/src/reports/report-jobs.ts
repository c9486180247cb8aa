import type { DataSource } from 'typeorm';
import { claimDueReportJob, deleteReportJob, postponeReportJob, type ReportJob } from '../shipments';
import { shipmentHasReport } from './reports.repository';
import { generateShipmentReports } from './shipment-report';

export interface ReportJobsRun {
  generated: number[];
  failed: Array<{ shipmentId: number; error: string }>;
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
        const job = await claimDueReportJob(manager);
        if (!job) return;
        claimed.job = job;
        if (!(await shipmentHasReport(manager, job.account_id, job.shipment_id))) await generateShipmentReports(manager, job.account_id, job.shipment_id);
        await deleteReportJob(manager, job.shipment_id);
      });
    } catch (error) {
      if (!claimed.job) throw error;
      const message = error instanceof Error ? error.message : String(error);
      run.failed.push({ shipmentId: claimed.job.shipment_id, error: message });
      await postponeReportJob(dataSource, claimed.job.shipment_id, message.slice(0, 1000), retryDelaySeconds(claimed.job.attempts + 1));
      continue;
    }
    if (!claimed.job) break;
    run.generated.push(claimed.job.shipment_id);
  }
  return run;
}
