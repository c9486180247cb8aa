import { connect } from 'amqplib';

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

