import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { REPORT_QUEUE_QUERIES as Q } from './report-queue.queries';

/**
 * Asks for the shipment's report, in the transaction that completes it: the job exists if and
 * only if the completion committed, whoever completed it (API, geofence automation).
 */
export async function enqueueShipmentReport(db: Db, accountId: AccountId, shipmentId: number): Promise<void> {
  await sql.run(db, Q.enqueue, [accountId, shipmentId]);
}

export interface ReportJob {
  shipment_id: number;
  account_id: AccountId;
  attempts: number;
}

/** The next due job, locked for the caller's transaction (SKIP LOCKED: other replicas take others), or null. */
export function claimDueReportJob(db: Db): Promise<ReportJob | null> {
  return sql.first<ReportJob>(db, Q.claimDue);
}

export async function deleteReportJob(db: Db, shipmentId: number): Promise<void> {
  await sql.run(db, Q.finish, [shipmentId]);
}

/** Records a failed attempt; the job is due again after `delaySeconds`. */
export async function postponeReportJob(db: Db, shipmentId: number, error: string, delaySeconds: number): Promise<void> {
  await sql.run(db, Q.postpone, [shipmentId, error, delaySeconds]);
}
