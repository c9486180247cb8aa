import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { runPendingReportJobs } from '@app/domain';
import { LOGGER, type AppLogger } from '@app/observability';

/** Safety net for jobs nobody kicked (completions by ingestion, a crash right after commit). */
export const REPORT_POLL_MS = 15_000;

/**
 * Generates the reports of completed shipments from the job table: right after a completion by
 * the API (kick) and on a timer. Runs one pass at a time; a kick during a pass runs another.
 */
@Injectable()
export class ReportWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), REPORT_POLL_MS);
    this.timer.unref();
    this.kick();
  }

  /** Starts a pass now (or right after the current one); `idle()` waits for it. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = null));
  }

  /** Resolves once no pass is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        const run = await runPendingReportJobs(this.dataSource);
        for (const failure of run.failed) this.logger.error({ shipmentId: failure.shipmentId, error: failure.error }, 'shipment report failed');
      } catch (error) {
        this.logger.error({ err: error }, 'report jobs could not run');
      }
    } while (this.again && !this.stopped);
  }
}
