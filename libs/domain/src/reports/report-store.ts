import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { newId } from '@app/database';
import type { ReportSubject } from './report-record';
import type { AccountId } from '@app/vocabulary';

export interface NewReportFile {
  id?: string;
  accountId: AccountId;
  subject: ReportSubject;
  name: string;
  contentType: string;
  content: Buffer;
  period: { from: Date; to: Date };
  generatedAt: Date;
}

/** Stores a generated file with its metadata (size and SHA-256 computed here), in the caller's transaction. */
export async function storeReportFile(manager: EntityManager, file: NewReportFile): Promise<string> {
  const id = file.id ?? newId();
  await manager.query(
    `INSERT INTO reports (id, account_id, subject_type, shipment_id, device_id, name, content_type, size_bytes, sha256, period_from, period_to, generated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      file.accountId,
      file.subject.type,
      file.subject.type === 'shipment' ? file.subject.id : null,
      file.subject.type === 'device' ? file.subject.id : null,
      file.name,
      file.contentType,
      file.content.length,
      createHash('sha256').update(file.content).digest('hex'),
      file.period.from.toISOString(),
      file.period.to.toISOString(),
      file.generatedAt.toISOString(),
    ],
  );
  await manager.query(`INSERT INTO report_files (report_id, content) VALUES ($1, $2)`, [id, file.content]);
  return id;
}
