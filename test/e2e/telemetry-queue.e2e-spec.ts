import type { AccountId } from '@app/vocabulary';
import { jest } from '@jest/globals';
import { connect, type Channel, type ChannelModel, type ConfirmChannel, type GetMessage } from 'amqplib';
import type { DataSource, QueryRunner } from 'typeorm';
import { REJECTION_REASON_HEADER, REJECTIONS_HEADER } from '@app/domain';
import { INGEST_BATCH_ITEMS } from '../../apps/api/src/common/queue/ingest-queue-consumer';
import { TelemetryQueueConsumer } from '../../apps/api/src/telemetry/telemetry-queue.consumer';
import { opsAgent, startApi, type TestApi } from '../support/api';
import { createTenant, dataSourceOf } from '../support/fixtures';
import { backdateLifecycle, point, registerDevice, setThresholds } from '../support/devices';

const T0 = new Date('2025-07-01T00:00:00.000Z');
const at = (minutes: number): Date => new Date(T0.getTime() + minutes * 60_000);

/** Polls until `probe` returns a value (the broker and consumer work asynchronously). */
async function eventually<T>(probe: () => Promise<T | null | undefined | false>, what: string, attempts = 200): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('Gateway telemetry queue (RabbitMQ)', () => {
  let api: TestApi;
  let db: DataSource;
  let consumer: TelemetryQueueConsumer;
  let broker: ChannelModel;
  let channel: ConfirmChannel;
  let accountId: AccountId;

  beforeAll(async () => {
    api = await startApi();
    db = dataSourceOf(api.app);
    consumer = api.app.get(TelemetryQueueConsumer);
    await consumer.start();
    broker = await connect(api.config.amqpUrl);
    channel = await broker.createConfirmChannel();
    accountId = (await createTenant(api.app)).accountId;
  });

  afterAll(async () => {
    await consumer.stop();
    const t = consumer.topology;
    await channel.deleteQueue(t.queue);
    await channel.deleteQueue(t.deadLetterQueue);
    await channel.deleteExchange(t.exchange);
    await channel.deleteExchange(t.deadLetterExchange);
    await broker.close();
    await api.close();
  });

  async function device(): Promise<string> {
    const registered = await registerDevice(db, accountId);
    await backdateLifecycle(db, registered.id, at(-60));
    return registered.id;
  }

  async function publish(body: unknown, messageId: string): Promise<void> {
    const content = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    channel.publish(consumer.topology.exchange, 'gateway.eu-1', content, { persistent: true, contentType: 'application/json', messageId });
    await channel.waitForConfirms();
  }

  const stored = async (deviceId: string): Promise<number> =>
    (await db.query('SELECT count(*)::int AS n FROM telemetry_points WHERE device_id = $1', [deviceId]))[0].n;

  const dead = new Map<string, GetMessage>();
  async function deadLettered(messageId: string): Promise<GetMessage> {
    return eventually(async () => {
      for (let message = await channel.get(consumer.topology.deadLetterQueue, { noAck: true }); message; message = await channel.get(consumer.topology.deadLetterQueue, { noAck: true })) {
        dead.set(String(message.properties.messageId), message);
      }
      return dead.get(messageId);
    }, `dead letter ${messageId}`);
  }

  it('declares durable, prefixed names and reports the broker in readiness', async () => {
    const t = consumer.topology;
    expect(t.queue.startsWith(`${process.env.AMQP_PREFIX}.`)).toBe(true);
    const queue = await channel.checkQueue(t.queue);
    expect(queue.consumerCount).toBe(1);
    const ready = await (await opsAgent(api)).get('/health/ready').expect(200);
    expect(ready.body.checks.broker).toBe('ok');
  });

  it('stores single points and batches, and acknowledges them', async () => {
    const id = await device();
    await publish(point(id, at(0), { temperature: 4.5 }), 'single');
    await publish({ points: [point(id, at(1), { temperature: 5 }), point(id, at(2), { temperature: 5.5, battery: 88 })] }, 'batch');
    await eventually(async () => (await stored(id)) === 3, 'three points');
    await eventually(async () => (await channel.checkQueue(consumer.topology.queue)).messageCount === 0, 'an empty queue');
    const [status] = await db.query('SELECT last_seen_at, battery FROM device_lifecycles WHERE device_id = $1', [id]);
    expect(status).toEqual({ last_seen_at: at(2), battery: 88 });
  });

  it('is idempotent when a gateway sends the same message twice', async () => {
    const id = await device();
    const body = { points: [point(id, at(0), { temperature: 4 }), point(id, at(5), { temperature: 4 })] };
    await publish(body, 'dup-1');
    await publish(body, 'dup-2');
    await publish(point(id, at(10), { temperature: 4 }), 'dup-marker');
    await eventually(async () => (await stored(id)) === 3, 'the marker point');
    expect(await stored(id)).toBe(3);
  });

  it('dead-letters unreadable messages with the reason in the headers', async () => {
    await publish('{"points": [', 'broken-json');
    await publish({ points: [] }, 'empty-batch');
    await publish([1, 2], 'array');
    expect((await deadLettered('broken-json')).properties.headers?.[REJECTION_REASON_HEADER]).toBe('message body is not valid JSON');
    expect((await deadLettered('empty-batch')).properties.headers?.[REJECTION_REASON_HEADER]).toBe('"points" must be a non-empty array');
    const array = await deadLettered('array');
    expect(array.properties.headers?.[REJECTION_REASON_HEADER]).toBe('message must be a point object or {"points": [...]}');
    expect(array.content.toString()).toBe('[1,2]');
    expect(array.properties.headers?.['x-original-routing-key']).toBe('gateway.eu-1');
  });

  it('keeps the valid points of a partly refused batch and dead-letters the message with each refusal', async () => {
    const id = await device();
    await publish({ points: [point(id, at(0), { temperature: 4 }), point(id, at(1), { temperature: 999 }), { device_id: id }] }, 'partial');
    const message = await deadLettered('partial');
    expect(message.properties.headers?.[REJECTION_REASON_HEADER]).toBe('2 of 3 point(s) refused; first: temperature must be between -100 and 150');
    expect(JSON.parse(String(message.properties.headers?.[REJECTIONS_HEADER]))).toEqual([
      { index: 1, reason: 'temperature must be between -100 and 150' },
      { index: 2, reason: 'recorded_at must be an ISO 8601 timestamp with a time zone' },
    ]);
    expect(await stored(id)).toBe(1);
  });

  describe('poison messages', () => {
    const partitions = async (): Promise<number> =>
      (await db.query(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'telemetry_points'::regclass`))[0].n;

    it('dead-letters a message larger than INGEST_MAX_MESSAGE_BYTES unparsed, and keeps consuming', async () => {
      const id = await device();
      const huge = Buffer.from(JSON.stringify({ points: [point(id, at(0), { temperature: 4 })], padding: 'x'.repeat(api.config.ingestMaxMessageBytes) }));
      channel.publish(consumer.topology.exchange, 'gateway.eu-1', huge, { persistent: true, messageId: 'huge' });
      await channel.waitForConfirms();
      await publish(point(id, at(1), { temperature: 4 }), 'after-huge');
      const message = await deadLettered('huge');
      expect(message.properties.headers?.[REJECTION_REASON_HEADER]).toBe(`message_too_large: ${huge.length} bytes, at most ${api.config.ingestMaxMessageBytes} (INGEST_MAX_MESSAGE_BYTES)`);
      expect(message.content.length).toBe(huge.length); // kept whole for inspection
      await eventually(async () => (await stored(id)) === 1, 'the next message to be stored');
    });

    it('refuses recorded_at before 2000-01-01 or ahead of the clock', async () => {
      const id = await device();
      await publish({ points: [point(id, new Date('1999-12-31T23:59:59Z')), point(id, new Date(Date.now() + 24 * 3600_000))] }, 'out-of-range');
      const message = await deadLettered('out-of-range');
      expect(JSON.parse(String(message.properties.headers?.[REJECTIONS_HEADER]))).toEqual([
        { index: 0, reason: 'recorded_at is before 2000-01-01' },
        { index: 1, reason: 'recorded_at is in the future' },
      ]);
      expect(await stored(id)).toBe(0);
    });

    it('creates no partition for a device without an owner, however many months its points span', async () => {
      const before = await partitions();
      const unknown = '01900000-0000-7000-8000-00000000dead';
      const months = Array.from({ length: 200 }, (_, i) => point(unknown, new Date(Date.UTC(2001, i, 15))));
      await publish({ points: months }, 'many-months');
      const message = await deadLettered('many-months');
      expect(message.properties.headers?.[REJECTION_REASON_HEADER]).toMatch(/^200 of 200 point\(s\) refused; first: device unknown/);
      expect(await partitions()).toBe(before);
    });
  });

  describe('batches in flight', () => {
    const points = (id: string, from: number, count: number, values: (minute: number) => Record<string, number>): Array<Record<string, unknown>> =>
      Array.from({ length: count }, (_, i) => point(id, at(from + i), values(from + i)));

    it('acknowledges each batch once stored, while the next one still waits for the database', async () => {
      // Every amqplib channel (the consumer's included) shares this prototype: the spy records acks and lets them through.
      const ack = jest.spyOn(Object.getPrototypeOf(Object.getPrototypeOf(channel)) as Channel, 'ack');
      const acked = (messageId: string): boolean => ack.mock.calls.some(([message]) => message.properties.messageId === messageId);
      const [busy, first, second] = [await device(), await device(), await device()];
      const lock = async (deviceId: string): Promise<QueryRunner> => {
        const runner = db.createQueryRunner();
        await runner.connect();
        await runner.startTransaction();
        await runner.query('SELECT 1 FROM device_lifecycles WHERE device_id = $1 FOR UPDATE', [deviceId]);
        return runner;
      };
      const release = async (runner: QueryRunner): Promise<void> => {
        if (!runner.isTransactionActive) return;
        await runner.rollbackTransaction();
        await runner.release();
      };
      const busyLock = await lock(busy);
      const secondLock = await lock(second);
      try {
        // While the consumer waits on `busy`, a full batch and a message that will wait on `second` arrive.
        await publish(point(busy, at(0), { temperature: 4 }), 'busy');
        // A full batch: the next message cannot join it.
        await publish({ points: points(first, 0, INGEST_BATCH_ITEMS, () => ({ temperature: 4 })) }, 'full-batch');
        await publish(point(second, at(0), { temperature: 4 }), 'waiting');
        await eventually(async () => (await channel.checkQueue(consumer.topology.queue)).messageCount === 0, 'all three delivered');
        await release(busyLock);
        await eventually(async () => (await stored(first)) === INGEST_BATCH_ITEMS, 'the full batch', 800);
        await eventually(() => Promise.resolve(acked('full-batch')), 'the ack of the full batch');
        expect(acked('busy')).toBe(true);
        expect(acked('waiting')).toBe(false);
        expect(await stored(second)).toBe(0);
        await release(secondLock);
        await eventually(async () => (await stored(second)) === 1, 'the waiting point');
        await eventually(() => Promise.resolve(acked('waiting')), 'the ack of the waiting message');
      } finally {
        await release(busyLock);
        await release(secondLock);
        ack.mockRestore();
      }
    });

    it('parses only what fits the next batch while one is stored: later messages wait unparsed, then are stored in order', async () => {
      const parse = jest.spyOn(TelemetryQueueConsumer.prototype as unknown as { parse(content: Buffer): unknown }, 'parse');
      const [busy, first, later] = [await device(), await device(), await device()];
      const runner = db.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query('SELECT 1 FROM device_lifecycles WHERE device_id = $1 FOR UPDATE', [busy]);
        await publish(point(busy, at(0), { temperature: 4 }), 'parse-busy');
        await publish({ points: points(first, 0, INGEST_BATCH_ITEMS, () => ({ temperature: 4 })) }, 'parse-full');
        for (let m = 0; m < 5; m++) await publish(point(later, at(m), { temperature: 4 }), `parse-later-${m}`);
        await eventually(async () => (await channel.checkQueue(consumer.topology.queue)).messageCount === 0, 'all delivered');
        // The busy batch is stored (waiting on the lock), the full batch is built, and only the
        // first of the five later messages was read to learn that it does not fit.
        expect(parse).toHaveBeenCalledTimes(3);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
        parse.mockRestore();
      }
      await eventually(async () => (await stored(later)) === 5, 'the later points', 800);
      expect(await stored(first)).toBe(INGEST_BATCH_ITEMS);
      expect(await stored(busy)).toBe(1);
    });

    it('stores consecutive batches of one device in order: status moves forward, one alarm per excursion', async () => {
      const id = await device();
      await setThresholds(db, id, { temperature_max: 8, delay_minutes: 10 });
      // 50 messages of 100 points = several batches; the excursion (minutes 1900–2199) spans batches.
      const hot = (minute: number): number => (minute >= 1900 && minute < 2200 ? 9 : 4);
      for (let m = 0; m < 50; m++) {
        await publish({ points: points(id, m * 100, 100, (minute) => ({ temperature: hot(minute), battery: 100 - minute / 100 })) }, `seq-${m}`);
      }
      await eventually(async () => (await stored(id)) === 5000, 'all points', 400);
      await eventually(async () => (await channel.checkQueue(consumer.topology.queue)).messageCount === 0, 'an empty queue');
      const [status] = await db.query('SELECT last_seen_at, battery, battery_at FROM device_lifecycles WHERE device_id = $1', [id]);
      expect(status).toEqual({ last_seen_at: at(4999), battery: 50.01, battery_at: at(4999) });
      const alarms = await db.query(`SELECT type, triggered_at FROM alarms WHERE device_id = $1`, [id]);
      expect(alarms).toEqual([{ type: 'TEMPERATURE', triggered_at: at(1910) }]);
    });
  });
});
