import { deleteEventTopology } from './broker';
import { dropDatabase } from './database';
import { PGBOUNCER_GLOBAL } from './global-setup';
import type { PgBouncer } from './pgbouncer';

export default async function globalTeardown(): Promise<void> {
  // The api's outbox relay and the dispatcher declare the run's exchanges and queues.
  if (process.env.AMQP_PREFIX) await deleteEventTopology(process.env.AMQP_PREFIX).catch(() => undefined);
  const bouncer = (globalThis as Record<string, unknown>)[PGBOUNCER_GLOBAL] as PgBouncer | undefined;
  if (bouncer) await bouncer.stop();
  if (process.env.TEST_DATABASE_NAME && !process.env.KEEP_TEST_DATABASE) await dropDatabase(process.env.TEST_DATABASE_NAME);
}
