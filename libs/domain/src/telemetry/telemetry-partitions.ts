import type { DataSource, EntityManager } from 'typeorm';

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

  constructor(private readonly db: DataSource | EntityManager) {}

  async ensure(instants: Iterable<Date>): Promise<void> {
    const missing = new Set<number>();
    for (const at of instants) {
      const month = monthStart(at).getTime();
      if (!this.known.has(month)) missing.add(month);
    }
    for (const month of [...missing].sort((a, b) => a - b)) {
      await this.db.query('SELECT telemetry_ensure_partition($1)', [new Date(month)]);
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
