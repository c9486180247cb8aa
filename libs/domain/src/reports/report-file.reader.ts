import type { DataSource } from 'typeorm';
import { readReportChunk } from './reports.repository';
import type { AccountId } from '@app/vocabulary';

/** Bytes read from the database per round trip while streaming a download. */
export const REPORT_CHUNK_BYTES = 256 * 1024;

/**
 * Ranged reads of a stored file. The content column is stored EXTERNAL (uncompressed, out of
 * line), so `substring` fetches only the TOAST chunks covering the range: the file is never
 * loaded whole, neither by PostgreSQL nor by the api.
 */
export class ReportFileReader {
  constructor(private readonly dataSource: DataSource) {}

  /** `length` bytes from `offset` (0-based); shorter at the end of the file. */
  readChunk(accountId: AccountId, reportId: string, offset: number, length: number): Promise<Buffer> {
    return readReportChunk(this.dataSource, accountId, reportId, offset, length);
  }
}
