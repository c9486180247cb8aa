import type { Db } from '@app/database/sql';
import { ensureTelemetryPartition } from './telemetry.repository';

/** First instant (UTC) of the month of `at`. */
export function monthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/**
 * Makes sure the monthly partitions for these instants exist (telemetry_ensure_partition).
 * Remembers what it created or found, so the hot path asks the database once per month and
 * process. Run it outside the ingestion transaction: creating a partition takes locks that
 * should not be held for a whole batch.
 */
export class TelemetryPartitions {
  private readonly known = new Set<number>();

  constructor(private readonly db: Db) {}

  async ensure(instants: Iterable<Date>): Promise<void> {
    const ms: number[] = [];
    for (const at of instants) ms.push(at.getTime());
    await this.ensureMs(ms);
  }

  /** Whether any of these instants falls in a month this process has not ensured yet. */
  hasUnknownMonth(instants: readonly number[]): boolean {
    let knownFrom = 0;
    let knownTo = 0;
    for (const at of instants) {
      if (at >= knownFrom && at < knownTo) continue;
      const month = monthStart(new Date(at));
      if (!this.known.has(month.getTime())) return true;
      knownFrom = month.getTime();
      knownTo = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1);
    }
    return false;
  }

  /** `ensure` for epoch milliseconds: no Date per instant while they fall in a known month. */
  async ensureMs(instants: readonly number[]): Promise<void> {
    const missing = new Set<number>();
    let knownFrom = 0;
    let knownTo = 0;
    for (const at of instants) {
      if (at >= knownFrom && at < knownTo) continue;
      const month = monthStart(new Date(at));
      const start = month.getTime();
      if (!this.known.has(start)) missing.add(start);
      knownFrom = start;
      knownTo = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1);
    }
    for (const month of [...missing].sort((a, b) => a - b)) {
      await ensureTelemetryPartition(this.db, new Date(month));
      this.known.add(month);
    }
  }

  /** Every month from `from` to `to` inclusive. */
  async ensureRange(from: Date, to: Date): Promise<void> {
    const months: Date[] = [];
    for (let month = monthStart(from); month <= to; month = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1))) {
      months.push(month);
    }
    await this.ensure(months);
  }
}
