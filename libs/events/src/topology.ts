import type { Channel } from 'amqplib';
import { assertTypedQueue, CLASSIC_QUEUES, deadLetterQueueArguments, workQueueArguments, type QueueSettings } from './queue-type';

/**
 * Broker names of the event pipeline, all under AMQP_PREFIX: a durable topic exchange (routing key
 * = event type), the dispatcher's durable queue bound to every event, and a dead-letter exchange
 * and queue for messages the dispatcher cannot parse (kept for inspection, never dropped).
 */
export interface EventTopology {
  exchange: string;
  dispatcherQueue: string;
  deadLetterExchange: string;
  deadLetterQueue: string;
}

export function eventTopology(prefix: string): EventTopology {
  return {
    exchange: `${prefix}.events`,
    dispatcherQueue: `${prefix}.dispatcher`,
    deadLetterExchange: `${prefix}.events.dead`,
    deadLetterQueue: `${prefix}.dispatcher.dead`,
  };
}

/**
 * Declares everything, idempotently. The relay declares the dispatcher's queue too: a message
 * published before any dispatcher ever started would otherwise be unroutable and dropped. Both
 * sides must use these exact arguments (RabbitMQ refuses a redeclaration with different ones):
 * the same AMQP_QUEUE_TYPE and delivery limit. A queue of another type is refused with a
 * QueueTypeMismatchError naming it and the fix.
 */
export async function assertEventTopology(channel: Channel, prefix: string, queues: QueueSettings = CLASSIC_QUEUES): Promise<EventTopology> {
  const names = eventTopology(prefix);
  await channel.assertExchange(names.exchange, 'topic', { durable: true });
  await channel.assertExchange(names.deadLetterExchange, 'fanout', { durable: true });
  await assertTypedQueue(channel, names.deadLetterQueue, queues, { durable: true, arguments: deadLetterQueueArguments(queues) });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, '');
  await assertTypedQueue(channel, names.dispatcherQueue, queues, { durable: true, arguments: workQueueArguments(queues, names.deadLetterExchange) });
  await channel.bindQueue(names.dispatcherQueue, names.exchange, '#');
  return names;
}
