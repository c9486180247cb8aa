import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The body with quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface TestSmtp {
  url: string;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

const decodeQuotedPrintable = (raw: string): string =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A real SMTP server on a free local port that keeps every message it accepts. */
export async function startSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text: decodeQuotedPrintable(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * A TCP proxy in front of an SMTP server that answers slowly on purpose: the greeting goes through
 * at once, then every later byte of the server's replies waits `intervalMs` (one byte at a time,
 * so a per-socket idle timeout never fires). `behave()` forwards everything at once from then on.
 */
export class DrippingSmtpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private dripping = true;
  private readonly flushes = new Set<() => void>();
  /** Bytes of the servers' replies held back so far, over every connection. */
  dripped = 0;
  port = 0;

  constructor(
    private readonly target: TestSmtp,
    private readonly intervalMs: number,
  ) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  get connections(): number {
    return this.sockets.size / 2;
  }

  async start(): Promise<void> {
    const { hostname, port } = new URL(this.target.url);
    const server = createServer((client) => {
      const upstream = connect(Number(port), hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      const held: number[] = [];
      let greeted = false;
      upstream.on('data', (chunk: Buffer) => {
        let bytes = [...chunk];
        if (!greeted) {
          const end = bytes.indexOf(0x0a) + 1;
          if (end > 0) {
            greeted = true;
            client.write(Buffer.from(bytes.slice(0, end)));
            bytes = bytes.slice(end);
          }
        }
        held.push(...bytes);
        if (!this.dripping) flush();
      });
      const flush = (): void => {
        if (held.length > 0 && !client.destroyed) client.write(Buffer.from(held.splice(0)));
      };
      this.flushes.add(flush);
      const timer = setInterval(() => {
        if (held.length === 0 || client.destroyed || !this.dripping) return;
        this.dripped += 1;
        client.write(Buffer.from(held.splice(0, 1)));
      }, this.intervalMs);
      client.on('close', () => {
        clearInterval(timer);
        this.flushes.delete(flush);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  behave(): void {
    this.dripping = false;
    for (const flush of this.flushes) flush();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
