import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  key: string;
  cert: string;
}

/** A throwaway self-signed certificate for localhost, 127.0.0.1, ::1 and `extraNames` (openssl CLI). */
export function generateTestCertificate(extraNames: string[] = []): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2',
        '-subj', '/CN=localhost', '-addext', `subjectAltName=${['DNS:localhost', ...extraNames.map((n) => `DNS:${n}`), 'IP:127.0.0.1', 'IP:::1'].join(',')}`,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedWebhook {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** Exactly the bytes received. */
  rawBody: Buffer;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer: the sender's timeout must end the attempt. */
  hang?: boolean;
  /** Runs before answering (e.g. rotate the secret between two attempts). */
  before?: (request: ReceivedWebhook) => Promise<void>;
}

/** A real HTTPS webhook receiver on loopback that records raw requests and answers from a script per path. */
export class HttpsReceiver {
  private readonly requests: ReceivedWebhook[] = [];
  private readonly scripts = new Map<string, { replies: Reply[]; fallback: Reply }>();
  private readonly inFlight = new Map<string, number>();
  private readonly maxInFlight = new Map<string, number>();

  private constructor(private readonly server: Server) {}

  static async start(certificate: TestCertificate): Promise<HttpsReceiver> {
    let receiver: HttpsReceiver | null = null;
    const server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => void receiver?.handle(req, res));
    receiver = new HttpsReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  url(path: string, host = 'localhost'): string {
    return `https://${host}:${this.port}${path}`;
  }

  /** Replies in order, then `fallback` for every later request (default 200). */
  script(path: string, replies: Reply[], fallback: Reply = { status: 200 }): void {
    this.scripts.set(path, { replies: [...replies], fallback });
  }

  received(path: string): ReceivedWebhook[] {
    return this.requests.filter((r) => r.path === path);
  }

  maxConcurrent(path: string): number {
    return this.maxInFlight.get(path) ?? 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received: ReceivedWebhook = { path, method: req.method ?? '', headers: req.headers, rawBody: Buffer.concat(chunks) };
    this.requests.push(received);
    const now = (this.inFlight.get(path) ?? 0) + 1;
    this.inFlight.set(path, now);
    this.maxInFlight.set(path, Math.max(now, this.maxInFlight.get(path) ?? 0));
    // A request is in flight until its answer is sent (or its connection closes): counting until the
    // response's 'close' event would overlap the sender's next request on another connection, since
    // the event loop may read that request before it runs this response's write callback.
    let done = false;
    const release = (): void => {
      if (done) return;
      done = true;
      this.inFlight.set(path, (this.inFlight.get(path) ?? 1) - 1);
    };
    res.on('close', release);
    const script = this.scripts.get(path);
    const reply = script?.replies.shift() ?? script?.fallback ?? { status: 200 };
    if (reply.before) await reply.before(received);
    if (reply.hang) return;
    release();
    res.writeHead(reply.status, reply.headers ?? {});
    res.end(reply.body ?? '');
  }
}
