/**
 * The shipments family's door to its report queue (report-queue.queries.ts): the reports family's
 * worker claims a due job, deletes it once the reports are stored, or postpones it after a failure.
 */
export { claimDueReportJob, deleteReportJob, postponeReportJob, type ReportJob } from './report-queue.repository';
