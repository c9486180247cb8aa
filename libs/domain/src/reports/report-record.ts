import type { ReportRow, ReportSubject } from './reports.repository';

/** Report metadata: what `GET /reports/` and `GET /reports/{id}/` show. */
export interface ReportRecord {
  id: string;
  name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  period_from: string;
  period_to: string;
  subject: ReportSubject;
  generated_at: string;
}

export function presentReport(row: ReportRow): ReportRecord {
  return {
    id: row.id,
    name: row.name,
    content_type: row.content_type,
    // bigint arrives as text; report files stay far below 2^53 bytes
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    period_from: row.period_from.toISOString(),
    period_to: row.period_to.toISOString(),
    subject: row.subject_type === 'shipment' ? { type: 'shipment', id: row.shipment_id as number } : { type: 'device', id: row.device_id as string },
    generated_at: row.generated_at.toISOString(),
  };
}
