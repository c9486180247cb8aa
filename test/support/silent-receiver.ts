import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { TestCertificate } from './https-receiver';

/**
 * A hostile webhook receiver on loopback that takes connections and never answers: `tcp` accepts
 * TCP and never says a word (the TLS handshake never completes), `tls` completes the handshake and
 * never answers the request. Counts the connections it holds open.
 */
export class SilentReceiver {
  private readonly sockets = new Set<Socket>();
  private peakOpen = 0;

  private constructor(private readonly server: Server) {}

  static async start(mode: 'tcp' | 'tls', certificate: TestCertificate): Promise<SilentReceiver> {
    let receiver: SilentReceiver | null = null;
    const hold = (socket: Socket): void => receiver?.hold(socket);
    const server = mode === 'tcp' ? createTcpServer(hold) : createTlsServer({ key: certificate.key, cert: certificate.cert }, hold);
    receiver = new SilentReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Connections held open now. */
  get open(): number {
    return this.sockets.size;
  }

  /** Most connections held open at once. */
  get peak(): number {
    return this.peakOpen;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private hold(socket: Socket): void {
    this.sockets.add(socket);
    this.peakOpen = Math.max(this.peakOpen, this.sockets.size);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.resume();
  }
}
