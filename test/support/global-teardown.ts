import { deleteEventTopology } from './broker';
import { dropDatabase } from './database';

export default async function globalTeardown(): Promise<void> {
  // The api's outbox relay and the dispatcher declare the run's exchanges and queues.
  if (process.env.AMQP_PREFIX) await deleteEventTopology(process.env.AMQP_PREFIX).catch(() => undefined);
  if (process.env.TEST_DATABASE_NAME && !process.env.KEEP_TEST_DATABASE) await dropDatabase(process.env.TEST_DATABASE_NAME);
}
