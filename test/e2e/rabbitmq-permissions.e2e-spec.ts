import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { assertEventTopology, eventTopology } from '@app/events';
import { aisTopology, ingestTopology } from '@app/domain';
import { AMQP_URL } from '../support/broker';
import { uniqueName } from '../support/test-env';

type Role = 'coldchain-api' | 'coldchain-dispatcher' | 'coldchain-gateway';
type Permissions = Record<Role, { configure: string; write: string; read: string }>;

const PERMISSIONS = JSON.parse(readFileSync(join(process.cwd(), 'docker/rabbitmq/permissions.json'), 'utf8')) as Permissions;
const PREFIX = 'coldchain'; // the patterns are written for the default AMQP_PREFIX; the vhost isolates this run
const rabbitmqctl = (...args: string[]): string => execFileSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8' });

/**
 * The broker users of docker/rabbitmq/permissions.json, applied to a real RabbitMQ in a vhost of
 * their own: each role can do its work, and the gateway role cannot reach the events exchange, so
 * a gateway's credentials can never publish (forge) a domain event.
 */
describe('RabbitMQ users and permissions of the stack', () => {
  const vhost = uniqueName('cc_perms');
  const users = new Map<Role, string>();
  const open: ChannelModel[] = [];

  const login = async (role: Role): Promise<ChannelModel> => {
    const url = new URL(AMQP_URL);
    url.username = users.get(role) as string;
    url.password = 'test-password';
    url.pathname = `/${encodeURIComponent(vhost)}`;
    const model = await connect(url.toString());
    model.on('error', () => undefined);
    open.push(model);
    return model;
  };
  /** Runs a channel operation; resolves with the broker's refusal text, or null when it was allowed. */
  const refusal = async (model: ChannelModel, work: (channel: ConfirmChannel) => Promise<unknown>): Promise<string | null> => {
    const channel = await model.createConfirmChannel();
    let closedWith: string | null = null; // the broker's reason arrives as the channel's error
    channel.on('error', (error: Error) => (closedWith = error.message));
    try {
      await work(channel);
      await channel.close();
      return null;
    } catch (error) {
      await new Promise((resolve) => setImmediate(resolve));
      return closedWith ?? String((error as Error).message);
    }
  };
  const publishTo = (exchange: string) => async (channel: ConfirmChannel) => {
    channel.publish(exchange, 'x', Buffer.from('{}'));
    await channel.waitForConfirms();
  };

  beforeAll(async () => {
    rabbitmqctl('add_vhost', vhost);
    for (const role of Object.keys(PERMISSIONS).filter((key) => !key.startsWith('_')) as Role[]) {
      const name = `${vhost}_${role}`;
      users.set(role, name);
      rabbitmqctl('add_user', name, 'test-password');
      const { configure, write, read } = PERMISSIONS[role];
      rabbitmqctl('set_permissions', '-p', vhost, name, configure, write, read);
    }
  });
  afterAll(async () => {
    for (const model of open) await model.close().catch(() => undefined);
    for (const name of users.values()) rabbitmqctl('delete_user', name);
    rabbitmqctl('delete_vhost', vhost);
  });

  it('lets the api declare every exchange and queue, consume ingestion and publish events', async () => {
    const api = await login('coldchain-api');
    expect(await refusal(api, (channel) => assertEventTopology(channel, PREFIX))).toBeNull();
    for (const t of [ingestTopology(PREFIX), aisTopology(PREFIX)]) {
      const declared = await refusal(api, async (channel) => {
        await channel.assertExchange(t.exchange, 'topic', { durable: true });
        await channel.assertExchange(t.deadLetterExchange, 'fanout', { durable: true });
        await channel.assertQueue(t.deadLetterQueue, { durable: true });
        await channel.bindQueue(t.deadLetterQueue, t.deadLetterExchange, '');
        await channel.assertQueue(t.queue, { durable: true, arguments: { 'x-dead-letter-exchange': t.deadLetterExchange } });
        await channel.bindQueue(t.queue, t.exchange, '#');
        await channel.consume(t.queue, () => undefined);
      });
      expect(declared).toBeNull();
    }
    expect(await refusal(api, publishTo(eventTopology(PREFIX).exchange))).toBeNull();
  });

  it('lets the dispatcher consume events and dead-letter them, but not publish an event', async () => {
    const dispatcher = await login('coldchain-dispatcher');
    const names = eventTopology(PREFIX);
    expect(await refusal(dispatcher, (channel) => assertEventTopology(channel, PREFIX))).toBeNull();
    expect(await refusal(dispatcher, (channel) => channel.consume(names.dispatcherQueue, () => undefined))).toBeNull();
    expect(await refusal(dispatcher, (channel) => channel.checkQueue(names.dispatcherQueue))).toBeNull(); // queue depth for /metrics
    expect(await refusal(dispatcher, publishTo(names.deadLetterExchange))).toBeNull();
    expect(await refusal(dispatcher, publishTo(names.exchange))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal(dispatcher, publishTo(ingestTopology(PREFIX).exchange))).toMatch(/ACCESS_REFUSED/);
  });

  it('lets a gateway publish telemetry and AIS positions and nothing else: no event, no declaration, no reading', async () => {
    const gateway = await login('coldchain-gateway');
    expect(await refusal(gateway, publishTo(ingestTopology(PREFIX).exchange))).toBeNull();
    expect(await refusal(gateway, publishTo(aisTopology(PREFIX).exchange))).toBeNull();
    expect(await refusal(gateway, publishTo(eventTopology(PREFIX).exchange))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal(gateway, publishTo(eventTopology(PREFIX).deadLetterExchange))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal(gateway, (channel) => channel.assertQueue('coldchain.gateway-own', { durable: false }))).toMatch(/ACCESS_REFUSED/);
    expect(await refusal(gateway, (channel) => channel.consume(ingestTopology(PREFIX).queue, () => undefined))).toMatch(/ACCESS_REFUSED/);
  });
});
