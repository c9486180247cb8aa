import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { assertEventTopology, BrokerConnection, eventTopology } from '@app/events';
import type { DeliveryStore } from '../delivery/delivery-store';
import type { AppLogger } from '@app/observability';
import { MalformedEventMessage, parseEventMessage } from './event-message';

export interface EventConsumerOptions {
  amqpUrl: string;
  amqpPrefix: string;
  prefetch: number;
  logger: AppLogger;
  /** New deliveries exist: wake the worker (other replicas hear the NOTIFY). */
  onDeliveriesCreated(count: number): void;
  onEvent?(outcome: 'fanned_out' | 'dead_lettered', lagSeconds: number | null): void;
}

/**
 * Consumes the events queue with manual acks and a bounded prefetch. Each message becomes its
 * deliveries in PostgreSQL before it is acknowledged; while the database is unavailable the
 * message is held (retried with backoff) and, on shutdown or a lost channel, left unacknowledged
 * for redelivery. A message that is not an event at all is dead-lettered, never dropped.
 */
export class EventConsumer {
  readonly broker: BrokerConnection;
  private channel: Channel | null = null;
  private consumerTag: string | null = null;
  private readonly active = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly store: DeliveryStore,
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
    const names = await assertEventTopology(channel, this.options.amqpPrefix);
    await channel.prefetch(this.options.prefetch);
    this.channel = channel;
    const { consumerTag } = await channel.consume(names.dispatcherQueue, (message) => this.receive(channel, message), { noAck: false });
    this.consumerTag = consumerTag;
  }

  private receive(channel: Channel, message: ConsumeMessage | null): void {
    if (!message) return; // consumer cancelled by the broker; the reconnect resubscribes
    const task = this.handle(channel, message).finally(() => this.active.delete(task));
    this.active.add(task);
  }

  private async handle(channel: Channel, raw: ConsumeMessage): Promise<void> {
    let event;
    try {
      event = parseEventMessage(raw.content);
    } catch (error) {
      if (!(error instanceof MalformedEventMessage)) throw error;
      this.options.logger.error({ error: error.message, message_id: raw.properties.messageId }, 'not an event message; dead-lettered');
      this.settle(channel, () => channel.nack(raw, false, false));
      this.options.onEvent?.('dead_lettered', null);
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await this.store.fanOut(event);
        if (created > 0) this.options.onDeliveriesCreated(created);
        break;
      } catch (error) {
        this.options.logger.warn({ error: error instanceof Error ? error.message : String(error), event_id: event.envelope.id }, 'storing deliveries failed; retrying');
        if (this.stopping || this.channel !== channel) return; // unacknowledged: redelivered later
        await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 100 * 2 ** attempt)));
        if (this.stopping || this.channel !== channel) return;
      }
    }
    this.settle(channel, () => channel.ack(raw));
    this.options.onEvent?.('fanned_out', Math.max(0, (Date.now() - Date.parse(event.envelope.created_at)) / 1000));
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
