import type { ReportSubject } from './report-record';
import type { AccountId } from '@app/vocabulary';

export { storeReportFile } from './reports.repository';

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
