import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { assertEventTopology, BrokerConnection, type BrokerAddress, EVENT_SIGNATURE_HEADER, eventTopology, verifyEventMessage, type DomainEventMessage, type QueueSettings } from '@app/events';
import type { AppLogger } from '@app/observability';
import type { DeliveryQueue } from '@app/webhooks';
import { MalformedEventMessage, parseEventMessage } from './event-message';

export interface EventConsumerOptions {
  /** One broker URL, or every node of a cluster (AMQP_URL as a list; BrokerConnection fails over). */
  amqpUrl: BrokerAddress;
  amqpPrefix: string;
  /** AMQP_QUEUE_TYPE and the events delivery limit; classic when absent. */
  queues?: QueueSettings;
  prefetch: number;
  /** eventMessageKey(SECRETS_KEY): the key the api's outbox relay signs every message with. */
  signingKey: Buffer;
  /** EVENTS_MAX_MESSAGE_BYTES: a larger message is dead-lettered unread (never parsed, never verified). */
  maxMessageBytes: number;
  logger: AppLogger;
  /** New deliveries exist: wake the worker (other replicas hear the NOTIFY). */
  onDeliveriesCreated(count: number): void;
  onEvent?(outcome: 'fanned_out' | 'dead_lettered', lagSeconds: number | null): void;
}

/**
 * Consumes the events queue with manual acks and a bounded prefetch. Each message becomes its
 * deliveries in PostgreSQL before it is acknowledged (the messages that arrive together are stored
 * by one statement and acknowledged by one ack); while the database is unavailable the
 * message is held (retried with backoff) and, on shutdown or a lost channel, left unacknowledged
 * for redelivery. A message that is not an event at all is dead-lettered, never dropped.
 *
 * Tenancy is never taken from the broker: each message is fanned out only when it carries the
 * api's signature (EVENT_SIGNATURE_HEADER) over exactly its own bytes. The relay signs every message
 * it publishes, so there is no unsigned path: an unsigned copy of a genuine event, or a genuine
 * signature on altered bytes (another account, type or body), is dead-lettered with an
 * `x-rejection-reason` header, and nothing of it is delivered. A message is judged alone, never by
 * what else arrived in its batch.
 */
export class EventConsumer {
  readonly broker: BrokerConnection;
  private channel: Channel | null = null;
  private consumerTag: string | null = null;
  private readonly active = new Set<Promise<void>>();
  /** Parsed messages whose deliveries are not stored yet, in arrival order. */
  private readonly waiting: Array<{ channel: Channel; raw: ConsumeMessage; event: DomainEventMessage }> = [];
  private storing: Promise<void> | null = null;
  private stopping = false;
  /** The process's delivery queue (DeliveryStore's): its fan-out NOTIFY names this process, whose own worker skips it. */
  constructor(
    private readonly queue: DeliveryQueue,
    private readonly options: EventConsumerOptions,
  ) {
    this.broker = new BrokerConnection({
      url: options.amqpUrl,
      name: 'coldchain-dispatcher',
      logger: options.logger,
      setup: (model) => this.subscribe(model),
      onDisconnect: () => {
        this.channel = null;
        this.consumerTag = null;
      },
    });
  }

  get connected(): boolean {
    return this.broker.connected && this.channel !== null;
  }

  start(): void {
    this.stopping = false;
    this.broker.start();
  }

  waitUntilConnected(timeoutMs?: number): Promise<void> {
    return this.broker.waitUntilConnected(timeoutMs);
  }

  /** Stops consuming, lets the messages in hand be stored and acknowledged, then disconnects. */
  async stop(): Promise<void> {
    this.stopping = true;
    const { channel, consumerTag } = this;
    if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => undefined);
    await Promise.all([...this.active]);
    await this.broker.stop();
    this.channel = null;
  }

  /** Messages waiting in the events queue (a short-lived channel: a failed check cannot hurt the consumer). */
  async queueDepth(): Promise<number | null> {
    const model = this.broker.current;
    if (!model) return null;
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      return (await channel.checkQueue(eventTopology(this.options.amqpPrefix).dispatcherQueue)).messageCount;
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  private async subscribe(model: ChannelModel): Promise<void> {
    const channel = await model.createChannel();
    channel.on('error', () => undefined); // 'close' follows
    channel.on('close', () => {
      if (this.channel !== channel) return;
      this.channel = null;
      this.consumerTag = null;
      // A channel-level error closes only the channel: reconnect entirely rather than stop consuming.
      if (!this.stopping) void model.close().catch(() => undefined);
    });
    const names = await assertEventTopology(channel, this.options.amqpPrefix, this.options.queues);
    await channel.prefetch(this.options.prefetch);
    this.channel = channel;
    const { consumerTag } = await channel.consume(names.dispatcherQueue, (message) => this.receive(channel, message), { noAck: false });
    this.consumerTag = consumerTag;
  }

  private receive(channel: Channel, message: ConsumeMessage | null): void {
    if (!message) return; // consumer cancelled by the broker; the reconnect resubscribes
    const checked = this.check(message);
    if (!checked.ok) {
      this.deadLetter(channel, message, checked.reason);
      this.settle(channel, () => channel.ack(message));
      return;
    }
    this.waiting.push({ channel, raw: message, event: checked.event });
    // On the next turn of the event loop, so that every message the broker sent in one read shares a statement.
    if (!this.storing) {
      const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.storeWaiting())
        .finally(() => {
          this.active.delete(task);
          this.storing = null;
        });
      this.storing = task;
      this.active.add(task);
    }
  }

  /**
   * Judges one message on its own bytes, cheapest test first: its size (before anything reads it),
   * the relay's HMAC over exactly these bytes (before they are parsed), then the shape of an event.
   */
  private check(message: ConsumeMessage): { ok: true; event: DomainEventMessage } | { ok: false; reason: string } {
    const size = message.content.length;
    const { maxMessageBytes, signingKey } = this.options;
    if (size > maxMessageBytes) return { ok: false, reason: `message_too_large: ${size} bytes, at most ${maxMessageBytes} (EVENTS_MAX_MESSAGE_BYTES)` };
    const header = message.properties.headers?.[EVENT_SIGNATURE_HEADER];
    if (header === undefined || header === null) return { ok: false, reason: 'unauthenticated_event: unsigned (the api signs every event it publishes)' };
    if (!verifyEventMessage(signingKey, message.content, header)) return { ok: false, reason: 'unauthenticated_event: signature mismatch (not these bytes, or not the api\'s key)' };
    try {
      return { ok: true, event: parseEventMessage(message.content) };
    } catch (error) {
      if (!(error instanceof MalformedEventMessage)) throw error;
      return { ok: false, reason: `malformed_event: ${error.message}` };
    }
  }

  /**
   * Fans out the waiting messages in batches, one at a time and in arrival order, and acknowledges
   * each batch with one `multiple` ack once its deliveries are stored: every earlier message of the
   * channel is already settled, by an earlier batch or by a dead-letter nack.
   */
  private async storeWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, Math.max(1, this.options.prefetch)).filter((entry) => entry.channel === this.channel);
      if (batch.length === 0) continue; // from a channel that closed: the broker redelivers them
      const channel = batch[0].channel;
      const events = batch.map((entry) => entry.event);
      for (let attempt = 1; ; attempt++) {
        try {
          const created = await this.queue.fanOut(events);
          if (created > 0) this.options.onDeliveriesCreated(created);
          break;
        } catch (error) {
          this.options.logger.warn({ error: error instanceof Error ? error.message : String(error), events: events.length }, 'storing deliveries failed; retrying');
          if (this.stopping || this.channel !== channel) return; // unacknowledged: redelivered later
          await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 100 * 2 ** attempt)));
          if (this.stopping || this.channel !== channel) return;
        }
      }
      const last = batch[batch.length - 1].raw;
      this.settle(channel, () => channel.ack(last, true));
      const now = Date.now();
      for (const event of events) this.options.onEvent?.('fanned_out', Math.max(0, (now - Date.parse(event.envelope.created_at)) / 1000));
    }
  }

  /**
   * Copies the message to the dead-letter exchange with the reason in `x-rejection-reason` (a
   * broker-side dead-lettering cannot say why); the caller acknowledges the original.
   */
  private deadLetter(channel: Channel, message: ConsumeMessage, reason: string): void {
    const { deadLetterExchange } = eventTopology(this.options.amqpPrefix);
    this.options.logger.error(
      { reason, message_id: message.properties.messageId, routing_key: message.fields.routingKey },
      'event message rejected; dead-lettered',
    );
    this.settle(channel, () =>
      // Only descriptive properties: a forged `userId` would make the broker close the channel, an `expiration` drop the copy.
      channel.publish(deadLetterExchange, '', message.content, {
        persistent: true,
        messageId: message.properties.messageId,
        type: message.properties.type,
        contentType: message.properties.contentType,
        timestamp: message.properties.timestamp,
        appId: message.properties.appId,
        headers: { ...message.properties.headers, 'x-rejection-reason': reason, 'x-original-routing-key': message.fields.routingKey },
      }),
    );
    this.options.onEvent?.('dead_lettered', null);
  }

  /** An ack on a channel that has closed is impossible; the broker redelivers, fan-out is idempotent. */
  private settle(channel: Channel, action: () => void): void {
    if (this.channel !== channel) return;
    try {
      action();
    } catch {
      // channel closed between the check and the call
    }
  }
}
