import type { AppLogger } from '@app/observability';
import type { AttemptPlan, ClaimedDelivery, DeliveryStore, RecordedAttempt } from './delivery-store';
import type { AttemptResult } from './webhook-sender';

export interface AttemptRecorderOptions {
  /** Most successes written by one statement. */
  maxBatch: number;
  /** An endpoint's attempt log is trimmed once this many of its attempts were recorded since the last trim. */
  pruneEvery: number;
  /** Every endpoint with attempts recorded since its last trim is trimmed at least this often. */
  pruneIntervalMs: number;
  logger: AppLogger;
}

interface PendingSuccess {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  resolve(): void;
  reject(error: unknown): void;
}

/** Tries of one batch before its attempts count as unrecorded (the lease then retries them). */
const WRITE_TRIES = 3;

/**
 * Persists attempt outcomes. Successes, the common case, are written in batches (group commit):
 * each waits for the statement that carries it, and the next statement takes everything that
 * finished meanwhile, so one round trip records as many attempts as arrive during the previous
 * one. Failures, rare and able to disable their endpoint, keep one transaction each. The attempt
 * log is trimmed to the newest 100 per endpoint once per `pruneEvery` attempts of the endpoint and
 * on a timer, instead of on every attempt (readers show at most 100, newest first, regardless).
 */
export class AttemptRecorder {
  private pending: PendingSuccess[] = [];
  private writing: Promise<void> | null = null;
  private inStatement = 0;
  private readonly sincePrune = new Map<string, number>();
  private pruneTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: DeliveryStore,
    private readonly options: AttemptRecorderOptions,
  ) {}

  /** Successes waiting for, or riding in, a statement. */
  get backlog(): number {
    return this.pending.length + this.inStatement;
  }

  start(): void {
    if (this.pruneTimer) return;
    this.pruneTimer = setInterval(() => void this.pruneAll(), this.options.pruneIntervalMs);
    this.pruneTimer.unref();
  }

  /** Writes what is pending, then trims the log of every endpoint written since its last trim. */
  async stop(): Promise<void> {
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.pruneTimer = null;
    await this.flush();
    await this.pruneAll();
  }

  /** Resolves once the success is persisted; rejects if the database refused it `WRITE_TRIES` times. */
  recordSuccess(delivery: ClaimedDelivery, result: AttemptResult): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ delivery, result, resolve, reject });
      // On the next turn of the event loop: every response that arrived in this one joins the batch.
      if (!this.writing) this.writing = new Promise<void>((done) => setImmediate(done)).then(() => this.writeAll());
    });
  }

  async recordFailure(delivery: ClaimedDelivery, result: AttemptResult, plan: AttemptPlan): Promise<RecordedAttempt> {
    const recorded = await this.store.recordFailure(delivery, result, plan);
    this.noteWritten([delivery.endpoint_id]);
    return recorded;
  }

  /** Resolves when every success handed in before the call is persisted (or given up). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Trims the attempt log of every endpoint written since its last trim (the timer's job; tests). */
  async pruneAll(): Promise<void> {
    await this.prune([...this.sincePrune.keys()]);
  }

  private async writeAll(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.options.maxBatch);
        this.inStatement = batch.length;
        await this.write(batch);
        this.inStatement = 0;
        const due = [...this.sincePrune].filter(([, count]) => count >= this.options.pruneEvery).map(([endpointId]) => endpointId);
        if (due.length > 0) await this.prune(due);
      }
    } finally {
      this.inStatement = 0;
      this.writing = null;
    }
  }

  private async write(batch: PendingSuccess[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.queue.recordSuccesses(batch);
        this.noteWritten(batch.map((entry) => entry.delivery.endpoint_id));
        for (const entry of batch) entry.resolve();
        return;
      } catch (error) {
        if (attempt >= WRITE_TRIES) {
          for (const entry of batch) entry.reject(error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  private noteWritten(endpointIds: string[]): void {
    for (const endpointId of endpointIds) this.sincePrune.set(endpointId, (this.sincePrune.get(endpointId) ?? 0) + 1);
  }

  private async prune(endpointIds: string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    const counts = endpointIds.map((endpointId) => this.sincePrune.get(endpointId) ?? 0);
    try {
      await this.store.queue.trimAttemptLog(endpointIds);
      // Attempts written while the trim ran are counted towards the next one.
      endpointIds.forEach((endpointId, i) => {
        const left = (this.sincePrune.get(endpointId) ?? 0) - counts[i];
        if (left > 0) this.sincePrune.set(endpointId, left);
        else this.sincePrune.delete(endpointId);
      });
    } catch (error) {
      // Only storage hygiene: the next trim covers these endpoints too.
      this.options.logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'trimming the attempt log failed; will retry');
    }
  }
}
