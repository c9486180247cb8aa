import type { ChannelModel, ConfirmChannel } from 'amqplib';
import type { DataSource } from 'typeorm';
import { PgListener } from '@app/database';
import { assertEventTopology, BrokerConnection, type BrokerAddress, BrokerUnavailableError, EVENT_SIGNATURE_HEADER, eventTopology, OUTBOX_NOTIFY_CHANNEL, signEventMessage, type DomainEventMessage, type QueueSettings } from '@app/events';
import type { AppLogger } from '@app/observability';
import { claimOutboxBatch, markPublished, type OutboxRow } from '@app/events';


export interface OutboxRelayOptions {
  /** Where the relay LISTENs: a direct connection (DATABASE_DIRECT_URL), never a transaction pooler. */
  listenUrl: string;
  /** One broker URL, or every node of a cluster (AMQP_URL as a list; BrokerConnection fails over). */
  amqpUrl: BrokerAddress;
  amqpPrefix: string;
  /** AMQP_QUEUE_TYPE and the events delivery limit; classic when absent. */
  queues?: QueueSettings;
  pollIntervalMs: number;
  batchSize?: number;
  /**
   * Longest wait for the broker to take a batch (socket drain and publisher confirms). A broker
   * that blocks publishers (memory or disk alarm) never confirms: the batch is rolled back, the
   * connection replaced, and the rows go out on a later pass. Bounds a SIGTERM drain as well.
   */
  confirmTimeoutMs?: number;
  /** eventMessageKey(SECRETS_KEY): every message carries its HMAC, which the dispatcher checks. */
  signingKey: Buffer;
  logger: AppLogger;
  onPublished?: (count: number) => void;
}

/**
 * Publishes committed outbox rows to the events exchange: routing key = event type, persistent,
 * messageId = event id, on a confirm channel; a row is marked published in the same transaction
 * that locked it, after the broker confirmed it. Woken by NOTIFY (writeOutboxEvent), by a short
 * poll and by every broker reconnect. While RabbitMQ is down rows simply wait. A crash between
 * the confirm and the commit publishes the row again: delivery is at least once, and the
 * dispatcher's fan-out is idempotent per (event, endpoint).
 */
export class OutboxRelay {
  readonly broker: BrokerConnection;
  private readonly listener: PgListener;
  private readonly exchange: string;
  private readonly batchSize: number;
  private readonly confirmTimeoutMs: number;
  private channel: ConfirmChannel | null = null;
  private readonly returned = new Set<string>();
  private pollTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<number> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: OutboxRelayOptions,
  ) {
    this.exchange = eventTopology(options.amqpPrefix).exchange;
    this.batchSize = options.batchSize ?? 200;
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? 10_000;
    this.broker = new BrokerConnection({
      url: options.amqpUrl,
      name: 'coldchain-api-outbox-relay',
      logger: options.logger,
      setup: (model) => this.openChannel(model),
      onDisconnect: () => {
        this.channel = null;
      },
    });
    this.listener = new PgListener(options.listenUrl, OUTBOX_NOTIFY_CHANNEL, () => this.trigger(), options.logger);
  }

  get connected(): boolean {
    return this.broker.connected && this.channel !== null;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.broker.start();
    this.listener.start();
    this.pollTimer = setInterval(() => this.trigger(), this.options.pollIntervalMs);
    this.pollTimer.unref();
  }

  /** Stops waking up, lets the running pass finish, then closes the connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.listener.stop();
    await this.chain;
    await this.broker.stop();
    this.channel = null;
  }

  waitUntilConnected(timeoutMs?: number): Promise<void> {
    return this.broker.waitUntilConnected(timeoutMs);
  }

  /**
   * Publishes every row committed before the call that may go out now; resolves with how many
   * this pass published. Rejects when RabbitMQ is not connected (the rows wait).
   */
  flush(): Promise<number> {
    if (!this.connected) return Promise.reject(new BrokerUnavailableError());
    return this.schedulePass();
  }

  private trigger(): void {
    if (this.stopped || !this.connected) return;
    this.schedulePass().catch((error: unknown) =>
      this.options.logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'outbox relay pass failed; rows stay unpublished'),
    );
  }

  /** Passes run one at a time; a pass not yet started already covers every later request. */
  private schedulePass(): Promise<number> {
    if (this.queued) return this.queued;
    const pass = this.chain.then(() => {
      this.queued = null;
      return this.drain();
    });
    this.queued = pass;
    this.chain = pass.catch(() => undefined); // the error reaches this pass's caller: trigger() logs it, flush() rejects with it
    return pass;
  }

  private async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const channel = this.channel;
      if (!channel) {
        if (total === 0) throw new BrokerUnavailableError();
        break;
      }
      const { candidates, published } = await this.publishBatch(channel);
      total += published;
      if (published > 0) this.options.onPublished?.(published);
      if (this.stopped || candidates < this.batchSize || published < candidates) break;
    }
    return total;
  }

  private async publishBatch(channel: ConfirmChannel): Promise<{ candidates: number; published: number }> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const rows = await claimOutboxBatch(runner.manager, this.batchSize);
      this.returned.clear();
      const deadline = Date.now() + this.confirmTimeoutMs;
      for (const row of rows) {
        const body = this.body(row);
        if (!channel.publish(this.exchange, row.event_type, body, this.properties(row, body))) await within(drained(channel), deadline);
      }
      if (rows.length > 0) await within(channel.waitForConfirms(), deadline);
      // A returned message was confirmed but routed nowhere: it and everything after it wait.
      const cut = rows.findIndex((row) => this.returned.has(row.id));
      const published = cut === -1 ? rows : rows.slice(0, cut);
      await markPublished(runner.manager, published.map((row) => row.seq));
      await runner.commitTransaction();
      if (cut !== -1) {
        this.options.logger.error({ event_id: rows[cut].id, exchange: this.exchange }, 'outbox event was unroutable; it stays unpublished');
      }
      return { candidates: rows.length, published: published.length };
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      if (error instanceof ConfirmTimeoutError) {
        // Publishes without confirms are left on this channel: a later confirm would be counted
        // against the wrong batch. Drop the connection; the rows stay unpublished and go out again.
        this.options.logger.warn({ timeout_ms: this.confirmTimeoutMs }, 'RabbitMQ did not confirm the outbox batch in time; rolled back, reconnecting');
        if (this.channel === channel) this.channel = null;
        await this.broker.reset();
      }
      throw error;
    } finally {
      await runner.release();
    }
  }

  private body(row: OutboxRow): Buffer {
    const message: DomainEventMessage = { account_id: row.account_id, envelope: row.envelope };
    return Buffer.from(JSON.stringify(message));
  }

  private properties(row: OutboxRow, body: Buffer) {
    // A row written behind the service's back may lack a valid created_at: amqplib throws on a NaN
    // timestamp, which would wedge the relay on that row. It goes out without one, and the
    // dispatcher's shape check dead-letters it.
    const createdAt = Date.parse(row.envelope?.created_at);
    return {
      headers: { [EVENT_SIGNATURE_HEADER]: signEventMessage(this.options.signingKey, body) },
      persistent: true,
      mandatory: true,
      messageId: row.id,
      type: row.event_type,
      contentType: 'application/json',
      ...(Number.isFinite(createdAt) ? { timestamp: Math.floor(createdAt / 1000) } : {}),
      appId: 'coldchain-api',
    };
  }

  private async openChannel(model: ChannelModel): Promise<void> {
    const channel = await model.createConfirmChannel();
    channel.on('error', () => undefined); // 'close' follows
    channel.on('close', () => {
      if (this.channel !== channel) return;
      this.channel = null;
      // A channel-level error closes only the channel: reconnect entirely rather than stay idle.
      if (!this.stopped) void model.close().catch(() => undefined);
    });
    channel.on('return', (message: { properties: { messageId?: string } }) => {
      if (message.properties.messageId) this.returned.add(message.properties.messageId);
    });
    await assertEventTopology(channel, this.options.amqpPrefix, this.options.queues);
    this.channel = channel;
    setImmediate(() => this.trigger()); // rows that waited while the broker was away
  }
}

/** The broker did not take a batch before the relay's deadline. */
export class ConfirmTimeoutError extends Error {
  constructor() {
    super('publisher confirms timed out');
  }
}

/** Settles like `work`, or rejects with ConfirmTimeoutError at `deadline` (epoch ms). */
async function within<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConfirmTimeoutError()), Math.max(0, deadline - Date.now()));
  });
  work.catch(() => undefined); // settled after the deadline: nobody listens any more
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function drained(channel: ConfirmChannel): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      channel.off('close', onClose);
      resolve();
    };
    const onClose = (): void => {
      channel.off('drain', onDrain);
      reject(new BrokerUnavailableError());
    };
    channel.once('drain', onDrain);
    channel.once('close', onClose);
  });
}
