import type { ChannelModel } from 'amqplib';
import { BrokerConnection } from '@app/events';
import { AMQP_URL } from '../support/broker';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

describe('BrokerConnection (real RabbitMQ behind a TCP proxy)', () => {
  let proxy: TcpProxy;
  let connection: BrokerConnection | null = null;

  beforeEach(async () => {
    const broker = new URL(AMQP_URL);
    proxy = new TcpProxy(broker.hostname, Number(broker.port || 5672));
    await proxy.up();
  });

  afterEach(async () => {
    await connection?.stop();
    connection = null;
    await proxy.down();
  });

  function proxiedUrl(): string {
    const url = new URL(AMQP_URL);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    return url.toString();
  }

  it('reconnects when the connection is lost just after setup succeeded (it must not keep a closed connection as current)', async () => {
    const setups: ChannelModel[] = [];
    let lostDuringSetup = false;
    connection = new BrokerConnection({
      url: proxiedUrl(),
      name: 'broker-connection-test',
      initialDelayMs: 50,
      maxDelayMs: 200,
      setup: async (model) => {
        setups.push(model);
        if (setups.length > 1) return;
        // The last setup step has succeeded; then the broker goes away before setup returns.
        const closed = new Promise((resolve) => model.once('close', resolve));
        await proxy.down();
        await closed;
        lostDuringSetup = true;
      },
    });
    connection.start();
    await waitFor('the first setup to see its connection closed', () => lostDuringSetup);
    await proxy.up();

    await waitFor('a second setup on a new connection', () => setups.length >= 2, 10_000);
    await connection.waitUntilConnected();
    expect(connection.current).toBe(setups[1]);
    // The current connection is live: it can open a channel.
    const channel = await connection.current!.createChannel();
    await channel.close();
  });
});
