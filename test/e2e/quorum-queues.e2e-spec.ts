import { execFileSync } from 'node:child_process';
import { connect, type ChannelModel, type GetMessage } from 'amqplib';
import { aisTopology, ingestTopology } from '@app/domain';
import { eventTopology } from '@app/events';
import { AisQueueConsumer } from '../../apps/api/src/ais/ais-queue.consumer';
import { TelemetryQueueConsumer } from '../../apps/api/src/telemetry/telemetry-queue.consumer';
import { AppProcess, freePort } from '../support/app-process';
import { AMQP_URL } from '../support/broker';
import { uniqueName } from '../support/test-env';
import { waitFor } from '../support/wait';
import { WebhookDispatcherHarness } from './support/webhook-dispatcher-harness';

// A prefix of this suite's own, so that its quorum queues never meet the run's classic ones.
const PREFIX = uniqueName('cc_quorum');
const DELIVERY_LIMIT = 2;
process.env.AMQP_PREFIX = PREFIX;
process.env.AMQP_QUEUE_TYPE = 'quorum';
process.env.AMQP_DELIVERY_LIMIT = String(DELIVERY_LIMIT);

interface ListedQueue {
  name: string;
  type: string;
  arguments: Record<string, unknown>;
}

/** The broker's own view of the suite's queues (amqplib's checkQueue does not report the type). */
function listQueues(): Map<string, ListedQueue> {
  const out = execFileSync('rabbitmqctl', ['-q', 'list_queues', 'name', 'type', 'arguments', '--formatter', 'json'], { encoding: 'utf8' });
  const rows = JSON.parse(out) as Array<{ name: string; type: string; arguments: unknown }>;
  const listed = new Map<string, ListedQueue>();
  for (const row of rows) {
    if (!row.name.startsWith(`${PREFIX}.`)) continue;
    // rabbitmqctl prints arguments as [[name, type, value], ...] (3.10) or as an object.
    const args = Array.isArray(row.arguments)
      ? Object.fromEntries((row.arguments as unknown[][]).map((entry) => [entry[0] as string, entry[entry.length - 1]]))
      : (row.arguments as Record<string, unknown>);
    listed.set(row.name, { name: row.name, type: row.type, arguments: args });
  }
  return listed;
}

describe('quorum queues (AMQP_QUEUE_TYPE=quorum)', () => {
  const harness = new WebhookDispatcherHarness();
  const events = eventTopology(PREFIX);
  const ingest = [ingestTopology(PREFIX), aisTopology(PREFIX)];
  let broker: ChannelModel;

  beforeAll(async () => {
    await harness.setUp(); // the api (outbox relay) and a dispatcher, both quorum
    // The run turns the ingestion consumers off (INGEST_CONSUMER=off); this suite starts them itself.
    for (const consumer of [harness.api.app.get(TelemetryQueueConsumer), harness.api.app.get(AisQueueConsumer)]) await consumer.start();
    broker = await connect(AMQP_URL);
  });

  afterEach(() => harness.restoreDispatcher());

  afterAll(async () => {
    for (const consumer of [harness.api.app.get(TelemetryQueueConsumer), harness.api.app.get(AisQueueConsumer)]) await consumer.stop();
    await harness.tearDown();
    const channel = await broker.createChannel();
    for (const t of [events, ...ingest.map((i) => ({ ...i, dispatcherQueue: i.queue }))]) {
      await channel.deleteQueue(t.dispatcherQueue);
      await channel.deleteQueue(t.deadLetterQueue);
      await channel.deleteExchange(t.exchange);
      await channel.deleteExchange(t.deadLetterExchange);
    }
    await broker.close();
  });

  it('declares the events, ingestion and dead-letter queues as quorum queues with delivery limits', () => {
    const queues = listQueues();
    const work = (name: string, limit: number, dlx: string): void => {
      expect(queues.get(name)).toMatchObject({ type: 'quorum', arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': limit, 'x-dead-letter-exchange': dlx } });
    };
    work(events.dispatcherQueue, DELIVERY_LIMIT, events.deadLetterExchange);
    for (const t of ingest) work(t.queue, 1000, t.deadLetterExchange); // AMQP_INGEST_DELIVERY_LIMIT's default
    for (const name of [events.deadLetterQueue, ...ingest.map((t) => t.deadLetterQueue)]) {
      expect(queues.get(name)?.type).toBe('quorum');
      expect(queues.get(name)?.arguments['x-delivery-limit']).toBeUndefined();
    }
  });

  it('carries an outbox event through the quorum events queue to a webhook receiver', async () => {
    const hook = await harness.endpoint('/quorum');
    const envelope = await harness.publish(hook.account_id, 'alarm.created', { id: 'alarm-q' });
    expect(await harness.settled(hook.id, envelope.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(harness.receiver.received('/quorum')).toHaveLength(1);
  });

  it('dead-letters a message returned to the events queue more than the delivery limit', async () => {
    await harness.stopDispatcher(); // this test is the queue's only consumer
    const channel = await broker.createChannel();
    const poison = uniqueName('poison');
    channel.publish(events.exchange, 'alarm.created', Buffer.from('{"not":"an event"}'), { persistent: true, messageId: poison });
    let deliveries = 0;
    // Each get + requeue is a delivery a crashing consumer would cause; after the limit the broker dead-letters.
    for (;;) {
      const message: GetMessage | false = await channel.get(events.dispatcherQueue, { noAck: false });
      if (message === false) break;
      expect(message.properties.messageId).toBe(poison);
      deliveries += 1;
      channel.nack(message, false, true);
      expect(deliveries).toBeLessThanOrEqual(DELIVERY_LIMIT + 1);
    }
    expect(deliveries).toBe(DELIVERY_LIMIT + 1);
    const dead = await waitFor('the poison message in the dead-letter queue', async () => (await channel.get(events.deadLetterQueue, { noAck: false })) || undefined);
    expect(dead.properties.messageId).toBe(poison);
    expect(dead.properties.headers?.['x-first-death-reason']).toBe('delivery_limit');
    channel.ack(dead);
    await channel.close();
  });

  it('refuses to start, naming the queue and the fix, when AMQP_QUEUE_TYPE differs from the existing queues', async () => {
    const port = await freePort();
    const dispatcher = AppProcess.spawn('dispatcher', 'dispatcher', port, {
      ...process.env,
      AMQP_PREFIX: PREFIX,
      AMQP_QUEUE_TYPE: 'classic',
      DISPATCHER_PORT: String(port),
      LOG_LEVEL: 'info',
    });
    const exit = await Promise.race([dispatcher.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000))]);
    if (exit === null) await dispatcher.kill();
    expect(exit).toEqual({ code: 78, signal: null });
    const output = dispatcher.output();
    expect(output).toContain(`dispatcher: refusing to start: RabbitMQ queue "${events.deadLetterQueue}"`);
    expect(output).toContain('AMQP_QUEUE_TYPE=quorum');
    expect(output).toContain(`rabbitmqctl delete_queue ${events.deadLetterQueue}`);
    expect(output).not.toMatch(/\n\s+at /); // a message, not a stack trace
    // The quorum queues are untouched.
    expect(listQueues().get(events.dispatcherQueue)?.type).toBe('quorum');
  });
});
