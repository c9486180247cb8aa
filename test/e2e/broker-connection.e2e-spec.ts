import type { Socket } from 'node:net';
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

  it('sends small frames at once: Nagle\'s algorithm is off on its socket (amqplib turns it on unless told otherwise)', async () => {
    connection = new BrokerConnection({ url: proxiedUrl(), name: 'broker-connection-nodelay', setup: async () => undefined });
    connection.start();
    await connection.waitUntilConnected();
    const socket = (connection.current as unknown as { connection: { stream: Socket } }).connection.stream;
    // Node keeps the last setNoDelay() under an internal symbol; nothing public reads TCP_NODELAY back.
    const noDelay = Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'kSetNoDelay');
    expect(noDelay).toBeDefined();
    expect((socket as unknown as Record<symbol, unknown>)[noDelay as symbol]).toBe(true);
  });

  describe('with an AMQP_URL list (the nodes of a cluster, here three proxies in front of one broker)', () => {
    let nodes: TcpProxy[] = [];

    beforeEach(async () => {
      const broker = new URL(AMQP_URL);
      nodes = [new TcpProxy(broker.hostname, Number(broker.port || 5672)), new TcpProxy(broker.hostname, Number(broker.port || 5672))];
      for (const node of nodes) await node.up();
      nodes = [proxy, ...nodes];
    });

    afterEach(async () => {
      for (const node of nodes.slice(1)) await node.down();
    });

    const urlOf = (node: TcpProxy): string => {
      const url = new URL(AMQP_URL);
      url.hostname = '127.0.0.1';
      url.port = String(node.port);
      return url.toString();
    };
    const openOn = (): number[] => nodes.map((node) => node.open);

    function listConnection(connectTimeoutMs?: number): BrokerConnection {
      return new BrokerConnection({
        url: nodes.map(urlOf),
        name: 'broker-connection-list-test',
        initialDelayMs: 200,
        maxDelayMs: 2000,
        connectTimeoutMs,
        setup: async () => undefined,
      });
    }

    it('starts on the next node when the first refuses, and moves to a surviving node within a second when its node dies', async () => {
      await nodes[0].down();
      connection = listConnection();
      const started = Date.now();
      connection.start();
      await connection.waitUntilConnected(5000);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(openOn()).toEqual([0, 1, 0]);

      // Node 1 comes back, node 2 (the current one) dies: the app moves on without a restart.
      await nodes[0].up();
      const lost = new Promise((resolve) => connection!.current!.once('close', resolve));
      const killed = Date.now();
      await nodes[1].down();
      await lost;
      await waitFor('a connection on a surviving node', () => connection!.connected, 5000);
      expect(Date.now() - killed).toBeLessThan(1500);
      expect(openOn()[1]).toBe(0);
      expect(openOn()[0] + openOn()[2]).toBe(1);
      const channel = await connection.current!.createChannel();
      await channel.close();
    });

    it('gives up on a node that accepts TCP but never answers after connectTimeoutMs and takes the next', async () => {
      nodes[0].stall(); // a host that black-holes the AMQP handshake
      connection = listConnection(500);
      const started = Date.now();
      connection.start();
      await connection.waitUntilConnected(10_000);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(openOn()[1]).toBe(1);
      nodes[0].resume();
    });
  });
});
