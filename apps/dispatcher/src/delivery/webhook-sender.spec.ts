import { createServer, type Server } from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generateTestCertificate } from '../../../../test/support/https-receiver';
import { WebhookSender } from './webhook-sender';

/** Loopback HTTPS receivers, one origin each, answering 204; they count handshakes and resumed TLS sessions. */
async function receivers(count: number): Promise<{ cert: string; urls: string[]; servers: Server[]; handshakes: number[]; resumed: number[]; open(): Promise<number>; close(): Promise<void> }> {
  const certificate = generateTestCertificate();
  const handshakes = new Array<number>(count).fill(0);
  const resumed = new Array<number>(count).fill(0);
  const servers = Array.from({ length: count }, (_, i) => {
    const server = createServer({ key: certificate.key, cert: certificate.cert, keepAliveTimeout: 60_000 }, (request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      handshakes[i]++;
      if (socket.isSessionReused()) resumed[i]++;
    });
    return server;
  });
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  return {
    cert: certificate.cert, // self-signed: its own CA
    urls: servers.map((server) => `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
    servers,
    handshakes,
    resumed,
    // Connections the receivers still hold open (the sender's sockets, seen from the other end).
    open: async () => (await Promise.all(servers.map((s) => new Promise<number>((resolve) => s.getConnections((_, n) => resolve(n)))))).reduce((a, b) => a + b, 0),
    close: async () => {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

const webhook = (url: string, n: number) => ({ url, secret: 'whsec_test', eventType: 'alarm.created', eventId: `evt-${n}`, body: Buffer.from('{"n":1}') });

const settle = (ms = 200): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('WebhookSender idle-socket budget (WEBHOOK_MAX_IDLE_SOCKETS)', () => {
  const ORIGINS = 12;
  let fixture: Awaited<ReturnType<typeof receivers>>;

  beforeAll(async () => {
    fixture = await receivers(ORIGINS);
  });
  afterAll(async () => {
    await fixture.close();
  });

  async function deliverToEveryOrigin(sender: WebhookSender, perOrigin: number): Promise<void> {
    for (const [i, url] of fixture.urls.entries()) {
      const results = await Promise.all(Array.from({ length: perOrigin }, (_, k) => sender.send(webhook(url, i * 100 + k))));
      expect(results.map((r) => r.statusCode)).toEqual(new Array(perOrigin).fill(204));
    }
  }

  it('keeps at most the budget of idle keep-alive sockets over all origins, closing the least recently used', async () => {
    const sender = new WebhookSender({ timeoutMs: 5000, allowPrivateTargets: true, maxSocketsPerOrigin: 4, maxIdleSockets: 3, ca: fixture.cert });
    try {
      await deliverToEveryOrigin(sender, 2);
      await settle();
      expect(sender.idleSockets()).toBeLessThanOrEqual(3);
      expect(await fixture.open()).toBeLessThanOrEqual(3);
    } finally {
      sender.close();
    }
  });

  it('without a budget every origin keeps its sockets (what the budget bounds)', async () => {
    const sender = new WebhookSender({ timeoutMs: 5000, allowPrivateTargets: true, maxSocketsPerOrigin: 4, ca: fixture.cert });
    try {
      await deliverToEveryOrigin(sender, 2);
      await settle();
      expect(sender.idleSockets()).toBeGreaterThanOrEqual(ORIGINS);
    } finally {
      sender.close();
    }
  });

  it('resumes the TLS session when it reconnects to an origin whose idle socket the budget closed', async () => {
    const sender = new WebhookSender({ timeoutMs: 5000, allowPrivateTargets: true, maxSocketsPerOrigin: 4, maxIdleSockets: 1, ca: fixture.cert });
    try {
      const [first, second] = fixture.urls;
      await sender.send(webhook(first, 1));
      await settle(); // the session ticket arrives after the handshake
      await sender.send(webhook(second, 2)); // over the budget: the first origin's idle socket closes
      await settle();
      const [handshakesBefore, resumedBefore] = [fixture.handshakes[0], fixture.resumed[0]];
      expect((await sender.send(webhook(first, 3))).statusCode).toBe(204);
      expect(fixture.handshakes[0]).toBe(handshakesBefore + 1);
      expect(fixture.resumed[0]).toBe(resumedBefore + 1);
    } finally {
      sender.close();
    }
  });
});

describe('WebhookSender TLS context', () => {
  let fixture: Awaited<ReturnType<typeof receivers>>;

  beforeAll(async () => {
    fixture = await receivers(3);
  });
  afterAll(async () => {
    await fixture.close();
  });

  /** Calls of tls.createSecureContext (tls.connect builds one per connection when none is given) while `fn` runs. */
  async function contextsBuiltDuring(fn: () => Promise<void>): Promise<number> {
    const tls = createRequire(`${process.cwd()}/`)('node:tls') as { createSecureContext: (...args: unknown[]) => unknown };
    const original = tls.createSecureContext;
    let built = 0;
    tls.createSecureContext = (...args: unknown[]) => {
      built++;
      return original(...args);
    };
    try {
      await fn();
    } finally {
      tls.createSecureContext = original;
    }
    return built;
  }

  it.each([
    ['a CA of its own', true],
    ['the default roots (NODE_EXTRA_CA_CERTS included)', false],
  ])('shares one TLS context over every connection and origin, trusting %s', async (_label, withCa) => {
    // One OpenSSL SSL_CTX per connection, freed only when a major GC collects its wrapper, left
    // ~30 MB behind the dispatcher after 1,000 receiver origins (BENCHMARKS.md, webhook-origins).
    const sender = new WebhookSender({ timeoutMs: 5000, allowPrivateTargets: true, maxSocketsPerOrigin: 4, ...(withCa ? { ca: fixture.cert } : {}) });
    try {
      const built = await contextsBuiltDuring(async () => {
        const results = await Promise.all(fixture.urls.map((url, i) => sender.send(webhook(url, i))));
        // Without the CA the self-signed receivers are refused, but every connection was attempted.
        if (withCa) expect(results.map((r) => r.statusCode)).toEqual([204, 204, 204]);
        else expect(results.every((r) => r.statusCode === null && /certificate/i.test(r.error ?? ''))).toBe(true);
      });
      expect(built).toBe(0);
    } finally {
      sender.close();
    }
  });
});
