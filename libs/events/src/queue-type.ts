import { connect, type Channel, type Options } from 'amqplib';

/**
 * How the work queues (events, ingestion) and their dead-letter queues are declared.
 * `classic` declares them exactly as before (no `x-queue-type`), so existing deployments keep
 * their queues; `quorum` makes them replicated Raft queues with a delivery limit: a message
 * returned to the queue more than `deliveryLimit` times (consumer crashes, requeues) is
 * dead-lettered instead of looping. Classic queues have no delivery limit.
 */
export type QueueType = 'classic' | 'quorum';

export interface QueueSettings {
  type: QueueType;
  /** Quorum only: redeliveries after which a message is dead-lettered. */
  deliveryLimit: number;
}

export const CLASSIC_QUEUES: QueueSettings = { type: 'classic', deliveryLimit: 0 };

/** Arguments of a work queue whose rejected and over-limit messages go to `deadLetterExchange`. */
export function workQueueArguments(settings: QueueSettings, deadLetterExchange: string): Record<string, unknown> {
  if (settings.type === 'classic') return { 'x-dead-letter-exchange': deadLetterExchange };
  return {
    'x-queue-type': 'quorum',
    'x-dead-letter-exchange': deadLetterExchange,
    'x-delivery-limit': settings.deliveryLimit,
    // Dead-lettered copies are kept until the dead-letter queue confirms them (never dropped);
    // RabbitMQ requires reject-publish overflow for this strategy (no length limit is set).
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
  };
}

/** Arguments of a dead-letter queue (kept for inspection: no limit, no further dead-lettering). */
export function deadLetterQueueArguments(settings: QueueSettings): Record<string, unknown> | undefined {
  return settings.type === 'classic' ? undefined : { 'x-queue-type': 'quorum' };
}

/** A queue exists with a type or arguments other than the configured ones. */
export class QueueTypeMismatchError extends Error {
  constructor(
    readonly queue: string,
    readonly wanted: QueueType,
    detail: string,
  ) {
    const other = wanted === 'quorum' ? 'classic' : 'quorum';
    super(
      `RabbitMQ queue "${queue}" exists with other arguments than AMQP_QUEUE_TYPE=${wanted} declares (${detail}); ` +
        `a queue cannot change type in place. Either set AMQP_QUEUE_TYPE=${other} (keep the existing queue), or stop every ` +
        `api and dispatcher, let the queue drain, delete it (rabbitmqctl delete_queue ${queue}) and start again; ` +
        `see README "Quorum queues".`,
    );
    this.name = 'QueueTypeMismatchError';
  }
}

/**
 * Declares a queue; a PRECONDITION_FAILED (406: the queue exists with other arguments, such as
 * another type) becomes a QueueTypeMismatchError naming the queue and the fix. The channel is
 * closed by the broker in that case, as for any channel error.
 */
export async function assertTypedQueue(channel: Channel, queue: string, settings: QueueSettings, options: Options.AssertQueue): Promise<void> {
  try {
    await channel.assertQueue(queue, options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!/PRECONDITION[_-]FAILED/.test(message)) throw error;
    const detail = /inequivalent arg '[^']+'[^"]*/.exec(message)?.[0] ?? message;
    throw new QueueTypeMismatchError(queue, settings.type, detail);
  }
}

/**
 * The startup check: declares the topology once on a short-lived connection, before the app
 * starts its consumers. Throws QueueTypeMismatchError when a queue exists with another type (the
 * caller refuses to start with that message); any other failure (broker unreachable, say) is left
 * to the reconnecting consumers and reported by readiness. With several URLs (a cluster) the first
 * node that accepts a connection answers.
 */
export async function checkQueueTopology(url: string | readonly string[], declare: (channel: Channel) => Promise<unknown>, timeoutMs = 5000): Promise<void> {
  for (const node of typeof url === 'string' ? [url] : url) {
    const model = await connect(node, { timeout: timeoutMs }).catch(() => null);
    if (!model) continue; // this node is down: ask the next one
    try {
      model.on('error', () => undefined);
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      await declare(channel);
    } catch (error) {
      if (error instanceof QueueTypeMismatchError) throw error;
    } finally {
      await model.close().catch(() => undefined);
    }
    return;
  }
}

/** The configured queues (config `amqpQueues`), without depending on the config library. */
interface QueueConfig {
  amqpQueues: { type: QueueType; eventsDeliveryLimit: number; ingestDeliveryLimit: number };
}

export function eventQueueSettings(config: QueueConfig): QueueSettings {
  return { type: config.amqpQueues.type, deliveryLimit: config.amqpQueues.eventsDeliveryLimit };
}

/**
 * The ingestion limit is higher: while the database is down, the consumer requeues its messages
 * about once a second and each requeue counts as a delivery; only a message that keeps failing
 * that long is dead-lettered.
 */
export function ingestQueueSettings(config: QueueConfig): QueueSettings {
  return { type: config.amqpQueues.type, deliveryLimit: config.amqpQueues.ingestDeliveryLimit };
}
