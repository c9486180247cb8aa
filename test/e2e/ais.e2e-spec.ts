import { Readable } from 'node:stream';
import { connect, type ChannelModel, type ConfirmChannel, type GetMessage } from 'amqplib';
import type { DataSource } from 'typeorm';
import { AisIngestService, REJECTION_REASON_HEADER } from '@app/domain';
import { AisQueueConsumer } from '../../apps/api/src/ais/ais-queue.consumer';
import { ingestNdjson } from '../../apps/cli/src/commands/telemetry.commands';
import { API, startApi, type TestApi } from '../support/api';
import { createShipment, shipmentBody, shipmentWorld, type ShipmentWorld } from '../support/shipments';

async function eventually<T>(probe: () => Promise<T | null | undefined | false>, what: string, attempts = 200): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const MIN = 60_000;
/** One reference instant for the whole file, so that equal offsets are equal timestamps. */
const NOW = Math.floor(Date.now() / 1000) * 1000;
const ago = (minutes: number): string => new Date(NOW - minutes * MIN).toISOString();
let vesselSeq = 0;
/** A distinct MMSI per test (the table is shared by the whole run). */
const newMmsi = (): string => `3${String(process.pid % 100000).padStart(5, '0')}${String(++vesselSeq).padStart(3, '0')}`;

describe('AIS vessel positions: ingestion (queue and CLI) and the shipment detail', () => {
  let api: TestApi;
  let db: DataSource;
  let world: ShipmentWorld;
  let consumer: AisQueueConsumer;
  let broker: ChannelModel;
  let channel: ConfirmChannel;

  beforeAll(async () => {
    api = await startApi();
    world = await shipmentWorld(api, 4, undefined, 'Shipping line');
    db = world.db;
    consumer = api.app.get(AisQueueConsumer);
    await consumer.start();
    broker = await connect(api.config.amqpUrl);
    channel = await broker.createConfirmChannel();
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

  const positions = async (mmsi: string): Promise<number> => (await db.query(`SELECT count(*)::int AS n FROM ais_positions WHERE mmsi = $1`, [mmsi]))[0].n;
  const seaShipment = (deviceId: string, vessel: Record<string, string>, legs: Array<Record<string, unknown>> = []) =>
    createShipment(api, world.tenant, shipmentBody(world.refs, [deviceId], { transport_legs: [...legs, { mode: 'sea', ...vessel }, { mode: 'road' }] }));

  it('takes positions from the prefixed queue, idempotently, and dead-letters refused messages with the reason', async () => {
    const t = consumer.topology;
    expect(t).toEqual({
      exchange: `${process.env.AMQP_PREFIX}.ais`,
      queue: `${process.env.AMQP_PREFIX}.ais.ingest`,
      deadLetterExchange: `${process.env.AMQP_PREFIX}.ais.dead`,
      deadLetterQueue: `${process.env.AMQP_PREFIX}.ais.ingest.dead`,
    });
    const mmsi = newMmsi();
    const publish = async (body: unknown, messageId: string) => {
      channel.publish(t.exchange, 'feed.eu', Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), { persistent: true, messageId });
      await channel.waitForConfirms();
    };
    const position = (minutes: number) => ({ mmsi, recorded_at: ago(minutes), latitude: 38.5, longitude: 26.5 + minutes / 100, speed_knots: 13.2, course_deg: 15 });
    await publish(position(30), 'one');
    await publish({ positions: [position(20), position(10)] }, 'batch');
    await publish({ positions: [position(20), position(10)] }, 'batch-again');
    await eventually(async () => (await positions(mmsi)) === 3 && (await channel.checkQueue(t.queue)).messageCount === 0, 'three positions');
    await publish('{not json', 'broken');
    await publish({ positions: [position(5), { ...position(4), mmsi: '12' }] }, 'partly');
    const dead = new Map<string, GetMessage>();
    await eventually(async () => {
      for (let m = await channel.get(t.deadLetterQueue, { noAck: true }); m; m = await channel.get(t.deadLetterQueue, { noAck: true })) dead.set(String(m.properties.messageId), m);
      return dead.size === 2;
    }, 'two dead letters');
    expect(String(dead.get('broken')?.properties.headers?.[REJECTION_REASON_HEADER])).toBe('message body is not valid JSON');
    expect(String(dead.get('partly')?.properties.headers?.[REJECTION_REASON_HEADER])).toBe('1 of 2 position(s) refused; first: mmsi must be 9 digits');
    expect(await positions(mmsi)).toBe(4);
  });

  it('ais:ingest reads NDJSON and counts accepted, duplicate and rejected lines', async () => {
    const mmsi = newMmsi();
    const lines = [
      JSON.stringify({ mmsi, recorded_at: ago(3), latitude: 40, longitude: 28 }),
      JSON.stringify({ mmsi, recorded_at: ago(3), latitude: 40, longitude: 28 }),
      '',
      'not json',
      JSON.stringify({ imo: '9074728', recorded_at: ago(2), latitude: 40, longitude: 28 }),
      JSON.stringify({ mmsi, imo: '9074729', recorded_at: ago(1), latitude: 40.1, longitude: 28.1, course_deg: 90 }),
    ].join('\n');
    const summary = await ingestNdjson(Readable.from([lines]), new AisIngestService(db));
    expect(summary).toEqual({
      lines: 6,
      accepted: 2,
      duplicate: 1,
      rejected: 2,
      alarms: 0,
      errors: [
        { line: 4, reason: 'line is not valid JSON' },
        { line: 5, reason: 'imo must be a 7-digit IMO number with a valid check digit' },
      ],
    });
  });

  it('shows the latest position of the active sea leg’s vessel, by MMSI or IMO, with its time — or null', async () => {
    const [d1, d2, d3] = world.devices;
    const mmsi = newMmsi();
    const ais = new AisIngestService(db);
    const [t50, t30, t10, t7, t1, t60] = [ago(50), ago(30), ago(10), ago(7), ago(1), ago(60)];
    await ais.ingest([
      { mmsi, recorded_at: t50, latitude: 38.0, longitude: 26.0, speed_knots: 12 },
      { mmsi, recorded_at: t10, latitude: 38.2, longitude: 26.2, speed_knots: 12.5, course_deg: 44.5 },
      { mmsi, recorded_at: t30, latitude: 38.1, longitude: 26.1 },
    ]);
    const byMmsi = await seaShipment(d1, { vessel_mmsi: mmsi });
    expect(byMmsi.active_transport_leg).toMatchObject({ index: 0, mode: 'sea' });
    expect(byMmsi.ais_position).toEqual({ mmsi, imo: null, latitude: 38.2, longitude: 26.2, speed_knots: 12.5, course_deg: 44.5, recorded_at: t10 });

    // a newer report arrives: the detail follows
    await ais.ingest([{ mmsi, recorded_at: t1, latitude: 38.3, longitude: 26.3 }]);
    const detail = await api.http.get(`${API}/shipments/${byMmsi.id}/`).set(world.tenant.auth).expect(200);
    expect(detail.body.ais_position).toMatchObject({ latitude: 38.3, recorded_at: t1, speed_knots: null });

    const imo = '9319466';
    await ais.ingest([{ imo, recorded_at: t7, latitude: 36, longitude: 28 }]);
    const byImo = await seaShipment(d2, { vessel_imo: imo });
    expect(byImo.ais_position).toEqual({ mmsi: null, imo, latitude: 36, longitude: 28, speed_knots: null, course_deg: null, recorded_at: t7 });

    // the sea leg is not the active one (a road leg first, not finished): no position
    const roadFirst = await seaShipment(d3, { vessel_mmsi: mmsi }, [{ mode: 'road' }]);
    expect(roadFirst.active_transport_leg).toMatchObject({ mode: 'road' });
    expect(roadFirst.ais_position).toBeNull();
    // once the sea leg is behind (its planned arrival passed), no position either
    await api.http
      .put(`${API}/shipments/${byMmsi.id}/`)
      .set(world.tenant.auth)
      .send(shipmentBody(world.refs, [d1], { transport_legs: [{ mode: 'sea', vessel_mmsi: mmsi, planned_arrival_at: t60 }, { mode: 'road' }] }))
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ active_transport_leg: { mode: 'road' }, ais_position: null }));
    // a leg naming an MMSI follows that MMSI only, even if a report of another MMSI carries its IMO
    const mmsi2 = newMmsi();
    await ais.ingest([
      { mmsi: mmsi2, imo: '9319466', recorded_at: t10, latitude: 30, longitude: 30 },
      { mmsi: newMmsi(), imo: '9319466', recorded_at: t1, latitude: 31, longitude: 31 },
    ]);
    const both = await seaShipment(world.devices[3], { vessel_mmsi: mmsi2, vessel_imo: '9319466' });
    expect(both.ais_position).toMatchObject({ mmsi: mmsi2, latitude: 30, recorded_at: t10 });
    await api.http.delete(`${API}/shipments/${both.id}/`).set(world.tenant.auth).expect(204);
    // an unknown vessel has no position
    const silent = await createShipment(api, world.tenant, shipmentBody(world.refs, [world.devices[3]], { transport_legs: [{ mode: 'sea', vessel_mmsi: newMmsi() }] }));
    expect(silent.ais_position).toBeNull();
  });
});
