import { type BeforeApplicationShutdown, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { connect, type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage, type RecoveringChannelModel } from 'amqplib';
import type { AppConfig } from '@app/config';
import { REJECTION_REASON_HEADER, REJECTIONS_HEADER, type IngestRejection, type IngestTopology } from '@app/domain';
import type { ReadinessRegistry } from '@app/observability';

/** Messages handed to a consumer before it acknowledges; also the largest micro-batch. */
export const INGEST_PREFETCH = 64;
const RETRY_DELAY_MS = 1000;
const MAX_LISTED_REJECTIONS = 100;

interface Link {
  channel: Channel;
  confirm: ConfirmChannel;
}

interface Delivery {
  link: Link;
  message: ConsumeMessage;
}

export type ParsedQueueMessage = { ok: true; items: unknown[] } | { ok: false; reason: string };

export interface QueueConsumerSettings {
  topology: IngestTopology;
  /** Logger context, e.g. TelemetryQueueConsumer. */
  logName: string;
  /** Name of the readiness check for this consumer's broker connection. */
  readinessName: string;
  /** What one item is, for dead-letter reasons: "point", "position". */
  itemNoun: string;
}

/**
 * The queue adapter of an ingestion service (telemetry points, AIS positions): a durable queue
 * consumed with manual acks and bounded prefetch. Deliveries waiting together are ingested as one
 * batch. A message that cannot be read, or holds items the service refuses, is republished (with
 * publisher confirms) to the dead-letter queue with the reason in its headers before it is
 * acknowledged; the accepted items of a partly refused batch are kept (re-ingesting them later is
 * idempotent). When the database fails, the messages go back to the queue after a pause.
 */
export abstract class IngestQueueConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly topology: IngestTopology;
  private readonly logger: Logger;
  private connection: RecoveringChannelModel | null = null;
  private connected = false;
  private readinessRegistered = false;
  private pending: Delivery[] = [];
  private draining: Promise<void> | null = null;

  protected constructor(
    private readonly config: AppConfig,
    private readonly readiness: ReadinessRegistry,
    private readonly settings: QueueConsumerSettings,
  ) {
    this.topology = settings.topology;
    this.logger = new Logger(settings.logName);
  }

  /** Splits a message into the items it carries (validated later, one by one). */
  protected abstract parse(content: Buffer): ParsedQueueMessage;

  /** Ingests items; refusals are reported by their index in `items`. */
  protected abstract ingestItems(items: unknown[]): Promise<{ rejections: IngestRejection[] }>;

  onApplicationBootstrap(): void {
    if (!this.config.ingestConsumer) return;
    // Not awaited: the api serves requests while the broker is unreachable; readiness says so.
    this.start().catch((error: unknown) => this.logger.error(`${this.settings.logName} did not start: ${String(error)}`));
  }

  /** Connects (reconnecting for ever after), declares the topology and starts consuming. */
  async start(): Promise<void> {
    if (this.connection) return;
    if (!this.readinessRegistered) {
      this.readinessRegistered = true;
      this.readiness.register({
        name: this.settings.readinessName,
        check: () => (this.connected ? Promise.resolve() : Promise.reject(new Error('not connected to RabbitMQ'))),
      });
    }
    const connection = await connect(this.config.amqpUrl, {
      recovery: { waitForConnect: false, maxDelay: 10_000, setup: (model: ChannelModel) => this.setup(model) },
    });
    this.connection = connection;
    connection.on('connect', () => (this.connected = true));
    connection.on('disconnect', (error: Error) => {
      this.connected = false;
      this.logger.warn(`lost the broker: ${error.message}`);
    });
    connection.on('error', (error: Error) => this.logger.warn(`broker error: ${error.message}`));
    await connection.waitForConnect();
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    this.connected = false;
    await this.draining;
    await connection?.close();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  private async setup(model: ChannelModel): Promise<void> {
    const channel = await model.createChannel();
    const confirm = await model.createConfirmChannel();
    for (const ch of [channel, confirm]) ch.on('error', (error: Error) => this.logger.warn(`channel error: ${error.message}`));
    const t = this.topology;
    await channel.assertExchange(t.exchange, 'topic', { durable: true });
    await channel.assertExchange(t.deadLetterExchange, 'fanout', { durable: true });
    await channel.assertQueue(t.deadLetterQueue, { durable: true });
    await channel.bindQueue(t.deadLetterQueue, t.deadLetterExchange, '');
    // Anything nacked without requeue (our fallback) is dead-lettered by the broker itself.
    await channel.assertQueue(t.queue, { durable: true, arguments: { 'x-dead-letter-exchange': t.deadLetterExchange } });
    await channel.bindQueue(t.queue, t.exchange, '#');
    await channel.prefetch(INGEST_PREFETCH);
    const link: Link = { channel, confirm };
    await channel.consume(t.queue, (message) => message && this.receive({ link, message }), { noAck: false });
    this.connected = true;
  }

  private receive(delivery: Delivery): void {
    this.pending.push(delivery);
    this.schedule();
  }

  private schedule(): void {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.pending.length > 0) this.schedule();
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, this.pending.length);
      try {
        await this.process(group);
      } catch (error) {
        this.logger.error(`ingestion failed, messages requeued: ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        for (const delivery of group) this.settle(delivery, (ch, m) => ch.nack(m, false, true));
      }
    }
  }

  private async process(group: Delivery[]): Promise<void> {
    const items: unknown[] = [];
    const plans = group.map((delivery) => {
      const parsed = this.parse(delivery.message.content);
      if (!parsed.ok) return { delivery, reason: parsed.reason, start: 0, count: 0 };
      const start = items.length;
      items.push(...parsed.items);
      return { delivery, reason: null, start, count: parsed.items.length };
    });
    const result = await this.ingestItems(items);
    for (const plan of plans) {
      if (plan.reason !== null) {
        await this.deadLetter(plan.delivery, plan.reason, []);
        continue;
      }
      const refused: IngestRejection[] = result.rejections
        .filter((r) => r.index >= plan.start && r.index < plan.start + plan.count)
        .map((r) => ({ index: r.index - plan.start, reason: r.reason }));
      if (refused.length === 0) this.settle(plan.delivery, (ch, m) => ch.ack(m));
      else await this.deadLetter(plan.delivery, `${refused.length} of ${plan.count} ${this.settings.itemNoun}(s) refused; first: ${refused[0].reason}`, refused);
    }
  }

  private async deadLetter(delivery: Delivery, reason: string, rejections: IngestRejection[]): Promise<void> {
    const { link, message } = delivery;
    try {
      link.confirm.publish(this.topology.deadLetterExchange, message.fields.routingKey, message.content, {
        persistent: true,
        contentType: message.properties.contentType ?? 'application/json',
        messageId: message.properties.messageId,
        headers: {
          ...(message.properties.headers ?? {}),
          [REJECTION_REASON_HEADER]: reason,
          [REJECTIONS_HEADER]: JSON.stringify(rejections.slice(0, MAX_LISTED_REJECTIONS)),
          'x-original-exchange': message.fields.exchange,
          'x-original-routing-key': message.fields.routingKey,
        },
      });
      await link.confirm.waitForConfirms();
      this.settle(delivery, (ch, m) => ch.ack(m));
    } catch (error) {
      this.logger.warn(`dead-letter publish failed, rejecting instead: ${error instanceof Error ? error.message : String(error)}`);
      this.settle(delivery, (ch, m) => ch.nack(m, false, false));
    }
  }

  /** Acks and nacks on a channel that has since closed are moot: the broker redelivers. */
  private settle(delivery: Delivery, action: (channel: Channel, message: ConsumeMessage) => void): void {
    try {
      action(delivery.link.channel, delivery.message);
    } catch {
      // channel closed
    }
  }
}
