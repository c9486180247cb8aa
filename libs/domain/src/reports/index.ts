/** Front door of the reports family: shipment and device reports (PDF, CSV) and their background jobs. Services and types only; its repositories stay inside the folder. */
export * from './mean-kinetic-temperature';
export * from './series-stats';
export * from './report-record';
export * from './report-jobs';
export * from './shipment-report';
export * from './device-report';
export * from './reports.service';
export * from './report-file.reader';
export type { ReportRow, ReportSubject } from './reports.repository';
export * from './audit-export-pdf';
export * from './audit-export-signature';
