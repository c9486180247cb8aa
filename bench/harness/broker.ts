import { connect } from 'amqplib';
import { aisTopology, ingestTopology } from '@app/domain';
import { eventBrokerNames } from '../adapters/webhooks.adapter';

/** Deletes the run's queues, then its exchanges (names the apps declared under the run's prefix). */
export async function deleteBrokerNames(amqpUrl: string, names: { queues: string[]; exchanges: string[] }): Promise<void> {
  const connection = await connect(amqpUrl);
  try {
    for (const queue of names.queues) {
      const channel = await connection.createChannel();
      await channel.deleteQueue(queue).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
    for (const exchange of names.exchanges) {
      const channel = await connection.createChannel();
      await channel.deleteExchange(exchange).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
  } finally {
    await connection.close();
  }
}

/** Every broker name the apps declare under the run's prefix: the feeds' and, when built, the event pipeline's. */
export async function deleteRunBrokerNames(root: string, amqpUrl: string, prefix: string): Promise<void> {
  const feeds = [ingestTopology(prefix), aisTopology(prefix)];
  const events = await eventBrokerNames(root, prefix);
  await deleteBrokerNames(amqpUrl, {
    queues: [...feeds.flatMap((feed) => [feed.queue, feed.deadLetterQueue]), ...events.queues],
    exchanges: [...feeds.flatMap((feed) => [feed.exchange, feed.deadLetterExchange]), ...events.exchanges],
  });
}
