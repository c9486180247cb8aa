import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real service, to simulate it going away without touching it:
 * `down()` drops every connection and refuses new ones; `up()` listens again on the same port;
 * `stall()` keeps every connection open but forwards nothing the clients send (as a broker that
 * blocks publishers, or a network that black-holes packets) until `resume()`.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Map<Socket, Socket>();
  private stalled = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      upstream.pipe(client);
      this.pairs.set(client, upstream);
      if (!this.stalled) client.pipe(upstream);
      else client.pause();
      client.on('close', () => {
        this.pairs.delete(client);
        upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Client connections open through the proxy now. */
  get open(): number {
    return this.pairs.size;
  }

  stall(): void {
    this.stalled = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      client.pause();
    }
  }

  resume(): void {
    this.stalled = false;
    for (const [client, upstream] of this.pairs) {
      client.pipe(upstream);
      client.resume();
    }
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
