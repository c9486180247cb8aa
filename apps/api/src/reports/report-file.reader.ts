import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AccountId } from '@app/vocabulary';

/** Bytes read from the database per round trip while streaming a download. */
export const REPORT_CHUNK_BYTES = 256 * 1024;

/**
 * Ranged reads of a stored file. The content column is stored EXTERNAL (uncompressed, out of
 * line), so `substring` fetches only the TOAST chunks covering the range: the file is never
 * loaded whole, neither by PostgreSQL nor by the api.
 */
@Injectable()
export class ReportFileReader {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `length` bytes from `offset` (0-based); shorter at the end of the file. */
  async readChunk(accountId: AccountId, reportId: string, offset: number, length: number): Promise<Buffer> {
    const rows = (await this.dataSource.query(
      `SELECT substring(f.content FROM $3::int FOR $4::int) AS chunk
         FROM report_files f JOIN reports r ON r.id = f.report_id
        WHERE r.account_id = $1 AND f.report_id = $2`,
      [accountId, reportId, offset + 1, length],
    )) as Array<{ chunk: Buffer }>;
    return rows[0]?.chunk ?? Buffer.alloc(0);
  }
}
