// Used by global-teardown (outside jest's module mapper): relative imports only.
import { connect, type ConsumeMessage } from 'amqplib';
import { eventTopology } from '../../libs/events/src/topology';

export const AMQP_URL = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';

/** Deletes the run's exchanges and queues (AMQP_PREFIX) plus any extra queues a suite made. */
export async function deleteEventTopology(prefix: string, extraQueues: string[] = []): Promise<void> {
  const connection = await connect(AMQP_URL);
  try {
    const channel = await connection.createChannel();
    const names = eventTopology(prefix);
    for (const queue of [names.dispatcherQueue, names.deadLetterQueue, ...extraQueues]) await channel.deleteQueue(queue);
    for (const exchange of [names.exchange, names.deadLetterExchange]) await channel.deleteExchange(exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
}

export interface TapQueue {
  name: string;
  messages: ConsumeMessage[];
  close(): Promise<void>;
}

/** A queue of the test's own bound to the events exchange: sees every published event. */
export async function tapEvents(prefix: string, name: string): Promise<TapQueue> {
  const connection = await connect(AMQP_URL);
  const channel = await connection.createChannel();
  const { exchange } = eventTopology(prefix);
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertQueue(name, { durable: false, autoDelete: false });
  await channel.bindQueue(name, exchange, '#');
  const messages: ConsumeMessage[] = [];
  await channel.consume(name, (message) => {
    if (message) messages.push(message);
  }, { noAck: true });
  return {
    name,
    messages,
    close: async () => {
      await channel.deleteQueue(name);
      await connection.close();
    },
  };
}
