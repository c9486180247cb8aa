import type { DataSource } from 'typeorm';
import type { IngestRejection } from '../telemetry';
import { parseAisPosition, type AisPosition } from './ais-position';
import { insertAisPositions } from './ais.repository';

export interface AisIngestResult {
  accepted: number;
  duplicate: number;
  rejected: number;
  rejections: IngestRejection[];
}

/**
 * The one way vessel positions enter the system, behind the AIS queue consumer and the CLI:
 * validates, then stores idempotently per (vessel, recorded_at) in one multi-row INSERT per batch.
 */
export class AisIngestService {
  private readonly batchSize: number;
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    options: { batchSize?: number; now?: () => Date } = {},
  ) {
    this.batchSize = options.batchSize ?? 5000;
    this.now = options.now ?? (() => new Date());
  }

  async ingest(inputs: readonly unknown[]): Promise<AisIngestResult> {
    const result: AisIngestResult = { accepted: 0, duplicate: 0, rejected: 0, rejections: [] };
    const now = this.now();
    const valid: AisPosition[] = [];
    inputs.forEach((input, index) => {
      const parsed = parseAisPosition(input, now);
      if (parsed.ok) valid.push(parsed.position);
      else result.rejections.push({ index, reason: parsed.reason });
    });
    for (let start = 0; start < valid.length; start += this.batchSize) {
      const batch = valid.slice(start, start + this.batchSize);
      const inserted = await this.insert(batch);
      result.accepted += inserted;
      result.duplicate += batch.length - inserted;
    }
    result.rejected = result.rejections.length;
    return result;
  }

  private async insert(batch: AisPosition[]): Promise<number> {
    if (batch.length === 0) return 0;
    return insertAisPositions(this.dataSource, batch);
  }
}
