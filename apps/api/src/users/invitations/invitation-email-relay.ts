import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { InvitationEmailOutbox, InvitationMailSender } from '@app/domain';
import { LOGGER, type AppLogger } from '@app/observability';
import { APP_CONFIG } from '../../config/config.module';

/** Longest wait at shutdown for the abandoned pass to record its releases; the lease covers the rest. */
const SHUTDOWN_GRACE_MS = 3000;

/**
 * This replica's sender of queued invitation e-mails: woken at once by an invitation created
 * here (`kick`), and by a poll for those created elsewhere (other replicas, the CLI) and for
 * retries. Passes run one at a time. Each send is bounded by SMTP_TIMEOUT_MS per stage and
 * SMTP_SEND_TIMEOUT_MS in all. Shutdown does not wait for a slow mail server: it aborts the send
 * under way and the pass releases its e-mails (due again at once, for another replica or the next
 * start); should even that stall, the claim's lease makes them due again, so nothing is lost.
 */
@Injectable()
export class InvitationEmailRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly outbox: InvitationEmailOutbox;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private again = false;
  private busy = false;
  private stopped = true;
  private abandon = new AbortController();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    const sender = new InvitationMailSender(config.smtpUrl, config.publicBaseUrl, (line) => this.logger.info(line), {
      stageMs: config.smtpTimeoutMs,
      sendMs: config.smtpSendTimeoutMs,
    });
    this.outbox = new InvitationEmailOutbox(dataSource, {
      secretsKey: config.secretsKey,
      publicBaseUrl: config.publicBaseUrl,
      sender,
      log: (fields, message) => this.logger.warn(fields, message),
    });
  }

  onApplicationBootstrap(): void {
    this.stopped = false;
    this.abandon = new AbortController();
    this.timer = setInterval(() => this.kick(), this.config.outboxPollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.abandon.abort();
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise<void>((resolve) => (grace = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
    clearTimeout(grace);
  }

  /** Sends what is due, now or right after the running pass. */
  kick(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.running = this.pass().finally(() => {
      this.busy = false;
      if (this.again && !this.stopped) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async pass(): Promise<void> {
    try {
      for (;;) {
        const { sent, retrying, failed } = await this.outbox.deliverDue(undefined, this.abandon.signal);
        if (sent + retrying + failed === 0 || this.stopped) return;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'invitation e-mail pass failed');
    }
  }
}
