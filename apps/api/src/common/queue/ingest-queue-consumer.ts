import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { AppConfig } from '@app/config';
import { REJECTION_REASON_HEADER, REJECTIONS_HEADER, type IngestRejection, type IngestTopology } from '@app/domain';
import { assertTypedQueue, BrokerConnection, deadLetterQueueArguments, ingestQueueSettings, workQueueArguments, type QueueSettings } from '@app/events';
import type { AppLogger } from '@app/observability';
import type { ReadinessRegistry } from '@app/observability';

/**
 * Messages handed to a consumer before it acknowledges: what arrives while a batch is stored. At
 * gateway-sized messages (~100 items) this holds the batch being stored and a full next one. Only
 * the messages of those two batches are parsed; the others wait as received bytes.
 */
export const INGEST_PREFETCH = 256;
/**
 * Items per stored batch: messages are added to a batch until the next one would pass this. A
 * batch starts as soon as the previous one is stored, so under a light load batches stay small
 * (latency bounded by one store); only a backlog fills them.
 */
export const INGEST_BATCH_ITEMS = 10_000;
const RETRY_DELAY_MS = 1000;
const MAX_LISTED_REJECTIONS = 100;
/** Longest pause between two reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 10_000;

interface Link {
  channel: Channel;
  confirm: ConfirmChannel;
}

interface Delivery {
  link: Link;
  message: ConsumeMessage;
}

export type ParsedQueueMessage = { ok: true; items: unknown[] } | { ok: false; reason: string };

/**
 * The items of several messages, stored together. `add` may validate right away (CPU only), so
 * that the next batch is prepared while the previous one is being stored.
 */
export interface QueueIngestBatch {
  /** Appends items; returns the batch index of the first. Refusals are reported by batch index. */
  add(items: readonly unknown[]): number;
  /** Items added so far. */
  readonly size: number;
  store(): Promise<{ rejections: IngestRejection[] }>;
}

/** A batch that only collects items and hands them to `ingest` at once. */
export function collectingBatch(ingest: (items: unknown[]) => Promise<{ rejections: IngestRejection[] }>): QueueIngestBatch {
  const items: unknown[] = [];
  return {
    add(added) {
      const start = items.length;
      for (const item of added) items.push(item);
      return start;
    },
    get size() {
      return items.length;
    },
    store: () => ingest(items),
  };
}

/** One message in a batch: its items are [start, start + count) of the batch, or it is unreadable. */
interface Plan {
  delivery: Delivery;
  reason: string | null;
  start: number;
  count: number;
}

interface Unit {
  batch: QueueIngestBatch;
  plans: Plan[];
}

/** A message received but not yet in a batch; parsed once it is next in line. */
interface Waiting {
  delivery: Delivery;
  parsed: ParsedQueueMessage | null;
}

export interface QueueConsumerSettings {
  topology: IngestTopology;
  /** Logger context, e.g. TelemetryQueueConsumer. */
  logName: string;
  /** Name of the readiness check for this consumer's broker connection. */
  readinessName: string;
  /** Name of the broker connection, shown in the RabbitMQ management UI. */
  connectionName: string;
  /** What one item is, for dead-letter reasons: "point", "position". */
  itemNoun: string;
}

/**
 * Declares an ingestion topology (idempotently): exchange, queue of the configured type bound to
 * every routing key, and the dead-letter exchange and queue. A queue of another type is refused
 * with a QueueTypeMismatchError.
 */
export async function assertIngestTopology(channel: Channel, t: IngestTopology, queues: QueueSettings): Promise<void> {
  await channel.assertExchange(t.exchange, 'topic', { durable: true });
  await channel.assertExchange(t.deadLetterExchange, 'fanout', { durable: true });
  await assertTypedQueue(channel, t.deadLetterQueue, queues, { durable: true, arguments: deadLetterQueueArguments(queues) });
  await channel.bindQueue(t.deadLetterQueue, t.deadLetterExchange, '');
  // Anything nacked without requeue (our fallback), or over the delivery limit, is dead-lettered by the broker itself.
  await assertTypedQueue(channel, t.queue, queues, { durable: true, arguments: workQueueArguments(queues, t.deadLetterExchange) });
  await channel.bindQueue(t.queue, t.exchange, '#');
}

/**
 * The queue adapter of an ingestion service (telemetry points, AIS positions): a durable queue
 * consumed with manual acks and bounded prefetch, over a BrokerConnection (reconnects with backoff,
 * then declares the topology and subscribes again). Messages are parsed and added to a batch as
 * they arrive, and batches are stored one at a time, in arrival order: while one is stored, the
 * next is prepared (up to INGEST_BATCH_ITEMS; later messages wait unparsed, so the heap holds at
 * most two batches whatever the prefetch). Each message is acknowledged as soon as its batch is stored, so the broker
 * refills the prefetch window while the next batch is stored. A message that cannot be read, or
 * holds items the service refuses, is republished (with publisher confirms) to the dead-letter
 * queue with the reason in its headers before it is acknowledged; the accepted items of a partly
 * refused batch are kept (re-ingesting them later is idempotent). When the database fails, the
 * messages go back to the queue after a pause, with every message received after them.
 */
export abstract class IngestQueueConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly topology: IngestTopology;
  private readonly logger: AppLogger;
  private readonly broker: BrokerConnection;
  private started = false;
  private stopping = false;
  /** The channels of the current connection, once subscribed; null while disconnected. */
  private link: Link | null = null;
  private readinessRegistered = false;
  /** The batch messages are added to while the previous one is stored. */
  private building: Unit | null = null;
  /** Messages received after `building` filled up, oldest first. */
  private waiting: Waiting[] = [];
  private storing: Promise<void> | null = null;

  protected constructor(
    private readonly config: AppConfig,
    private readonly readiness: ReadinessRegistry,
    private readonly settings: QueueConsumerSettings,
    logger: AppLogger,
  ) {
    this.topology = settings.topology;
    this.logger = logger.child({ component: settings.logName });
    this.broker = new BrokerConnection({
      url: config.amqpUrls,
      name: settings.connectionName,
      logger: this.logger,
      maxDelayMs: MAX_RECONNECT_DELAY_MS,
      setup: (model) => this.setup(model),
      onDisconnect: () => {
        this.link = null;
      },
    });
  }

  private get connected(): boolean {
    return this.broker.connected && this.link !== null;
  }

  /** Splits a message into the items it carries (validated later, one by one). */
  protected abstract parse(content: Buffer): ParsedQueueMessage;

  /** A new, empty batch of the ingestion service. */
  protected abstract newBatch(): QueueIngestBatch;

  onApplicationBootstrap(): void {
    if (!this.config.ingestConsumer) return;
    // Not awaited: the api serves requests while the broker is unreachable; readiness says so.
    this.start().catch((error: unknown) => this.logger.error({ err: error }, 'ingestion consumer did not start'));
  }

  /** Connects (reconnecting for ever after), declares the topology and starts consuming. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    if (!this.readinessRegistered) {
      this.readinessRegistered = true;
      this.readiness.register({
        name: this.settings.readinessName,
        check: () => (this.connected ? Promise.resolve() : Promise.reject(new Error('not connected to RabbitMQ'))),
      });
    }
    this.broker.start();
    await this.broker.waitUntilConnected(null);
  }

  /** Finishes the batch being stored; the messages not yet stored go back to the queue with the connection. */
  async stop(): Promise<void> {
    this.started = false;
    this.stopping = true;
    this.link = null;
    this.waiting = [];
    this.building = null;
    await this.storing;
    await this.broker.stop();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Runs on every new connection: opens the channels, declares the topology and subscribes. */
  private async setup(model: ChannelModel): Promise<void> {
    model.on('error', (error: Error) => this.logger.warn({ err: error }, 'broker error'));
    const channel = await model.createChannel();
    const confirm = await model.createConfirmChannel();
    const link: Link = { channel, confirm };
    for (const ch of [channel, confirm]) {
      ch.on('error', (error: Error) => this.logger.warn({ err: error }, 'channel error'));
      ch.on('close', () => {
        if (this.link !== link) return;
        this.link = null;
        // A channel-level error closes only the channel: reconnect entirely rather than stop consuming.
        if (!this.stopping) void model.close().catch(() => undefined);
      });
    }
    await assertIngestTopology(channel, this.topology, ingestQueueSettings(this.config));
    const t = this.topology;
    await channel.prefetch(INGEST_PREFETCH);
    await channel.consume(t.queue, (message) => message && this.receive({ link, message }), { noAck: false });
    this.link = link;
  }

  private receive(delivery: Delivery): void {
    this.waiting.push({ delivery, parsed: null });
    this.fill();
    this.schedule();
  }

  private parseDelivery(delivery: Delivery): ParsedQueueMessage {
    const size = delivery.message.content.length;
    // Checked before parsing: a huge message must not reach JSON.parse in a heap-capped process.
    return size > this.config.ingestMaxMessageBytes
      ? { ok: false, reason: `message_too_large: ${size} bytes, at most ${this.config.ingestMaxMessageBytes} (INGEST_MAX_MESSAGE_BYTES)` }
      : this.parse(delivery.message.content);
  }

  /** Moves waiting messages, oldest first, into the batch being built until the next one would not fit. */
  private fill(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0];
      next.parsed ??= this.parseDelivery(next.delivery);
      const parsed = next.parsed;
      const count = parsed.ok ? parsed.items.length : 0;
      let unit = this.building;
      if (unit && unit.batch.size > 0 && unit.batch.size + count > INGEST_BATCH_ITEMS) return;
      if (!unit) unit = this.building = { batch: this.newBatch(), plans: [] };
      this.waiting.shift();
      const { delivery } = next;
      if (parsed.ok) unit.plans.push({ delivery, reason: null, start: unit.batch.add(parsed.items), count });
      else unit.plans.push({ delivery, reason: parsed.reason, start: 0, count: 0 });
    }
  }

  /** Starts storing the batch built so far unless one is being stored, then starts the next one. */
  private schedule(): void {
    if (this.storing) return;
    const unit = this.building;
    if (!unit) return;
    this.building = null;
    this.storing = this.store(unit).finally(() => {
      this.storing = null;
      this.fill();
      this.schedule();
    });
    this.fill();
  }

  private async store(unit: Unit): Promise<void> {
    let rejections: IngestRejection[];
    try {
      rejections = (await unit.batch.store()).rejections;
    } catch (error) {
      this.logger.error({ err: error }, 'ingestion failed, messages requeued');
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
      // Everything received after this batch goes back too, so that redelivery keeps the order.
      const requeued = [...unit.plans, ...(this.building?.plans ?? []), ...this.waiting].map((entry) => entry.delivery);
      this.waiting = [];
      this.building = null;
      for (const delivery of requeued) this.settle(delivery, (ch, m) => ch.nack(m, false, true));
      return;
    }
    await this.settleStored(unit.plans, rejections);
  }

  /** Acknowledges each message of a stored batch, or dead-letters it with its refusals. */
  private async settleStored(plans: Plan[], unsorted: IngestRejection[]): Promise<void> {
    const rejections = [...unsorted].sort((a, b) => a.index - b.index);
    let next = 0; // plans are in batch order too
    for (const plan of plans) {
      if (plan.reason !== null) {
        await this.deadLetter(plan.delivery, plan.reason, []);
        continue;
      }
      const end = plan.start + plan.count;
      while (next < rejections.length && rejections[next].index < plan.start) next++;
      const refused: IngestRejection[] = [];
      for (; next < rejections.length && rejections[next].index < end; next++) {
        refused.push({ index: rejections[next].index - plan.start, reason: rejections[next].reason });
      }
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
      this.logger.warn({ err: error }, 'dead-letter publish failed, rejecting instead');
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
