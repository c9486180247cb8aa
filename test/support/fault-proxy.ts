import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * An HTTP proxy in front of a real api that injects one fault into the next matching requests,
 * so that the client libraries' retry and timeout rules (clients/README.md) can be driven by the
 * same cases in every language:
 *
 * - `reset`: the connection is dropped before the request reaches the api;
 * - `lose-response`: the request is forwarded (the api does the work) and the connection is
 *   dropped instead of answering — the case idempotency keys exist for;
 * - `answer`: a scripted answer in place of the api's (a 502/503/504 page, a 429 with
 *   Retry-After, a 409 `idempotency_request_in_progress`, any other 4xx/5xx, or a file), the
 *   api not being asked; with `stallAfter` only the headers and that many body bytes are sent;
 * - `stall-body`: the api's real answer, cut after `stallAfter` body bytes (headers sent, the
 *   connection kept open, nothing more).
 *
 * Every request is recorded (method, path, the headers a test looks at, arrival time).
 */
export type Fault =
  | { kind: 'reset' }
  | { kind: 'lose-response' }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string | Buffer | object; stallAfter?: number }
  | { kind: 'stall-body'; stallAfter: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
  /** The fault applied to this request, if any. */
  fault?: Fault['kind'];
}

interface Armed {
  method: string;
  path: RegExp;
  fault: Fault;
  remaining: number;
}

export class FaultProxy {
  readonly requests: RecordedRequest[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private armed: Armed[] = [];
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next `times` requests with this method whose path matches get the fault. */
  arm(method: string, path: RegExp, fault: Fault, times = 1): void {
    this.armed.push({ method: method.toUpperCase(), path, fault, remaining: times });
  }

  /** Forgets armed faults and recorded requests. */
  reset(): void {
    this.armed = [];
    this.requests.length = 0;
  }

  /** Recorded requests with this method whose path matches. */
  matching(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method.toUpperCase() && path.test(r.path));
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  private take(method: string, path: string): Fault | undefined {
    const armed = this.armed.find((a) => a.remaining > 0 && a.method === method && a.path.test(path));
    if (!armed) return undefined;
    armed.remaining -= 1;
    return armed.fault;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const fault = this.take(method, path);
    this.requests.push({ method, path, headers: req.headers, at: Date.now(), fault: fault?.kind });

    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'answer') {
      const payload = fault.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(fault.body) ? fault.body : Buffer.from(typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body));
      const headers: Record<string, string> = {
        'content-type': typeof fault.body === 'object' && !Buffer.isBuffer(fault.body) ? 'application/problem+json' : 'text/plain',
        'x-request-id': `fault-${this.requests.length}`,
        ...fault.headers,
        'content-length': String(payload.length),
      };
      this.send(res, fault.status, headers, payload, fault.stallAfter);
      return;
    }

    let upstream: { status: number; headers: IncomingHttpHeaders; body: Buffer };
    try {
      upstream = await this.forward(req, body);
    } catch {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'lose-response') {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value === undefined || name === 'transfer-encoding' || name === 'connection' || name === 'keep-alive') continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    headers['content-length'] = String(upstream.body.length);
    this.send(res, upstream.status, headers, upstream.body, fault?.kind === 'stall-body' ? fault.stallAfter : undefined);
  }

  /** Writes the answer; with `stallAfter`, only that many body bytes, then nothing (the socket stays open until close()). */
  private send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer, stallAfter?: number): void {
    res.writeHead(status, headers);
    if (stallAfter === undefined) {
      res.end(body);
      return;
    }
    res.write(body.subarray(0, stallAfter));
  }

  private forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    const headers = { ...req.headers, host: `${this.target.host}:${this.target.port}`, 'content-length': String(body.length) };
    delete headers.connection;
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: this.target.host, port: this.target.port, method: req.method, path: req.url, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}
