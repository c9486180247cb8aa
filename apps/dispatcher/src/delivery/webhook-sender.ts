import { Agent, request } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { newId } from '@app/database';
import { signWebhook, STANDARD_WEBHOOK_HEADERS, standardWebhookSignatureHeader, WEBHOOK_CONTENT_TYPE, WEBHOOK_USER_AGENT } from '@app/webhook-kit';
import {
  hostOf,
  isPrivateAddress,
  TARGET_REFUSED,
  vettedLookup,
  WebhookDnsResolver,
  type LookupFunction,
  type Resolver,
  type SignatureFormat,
} from '@app/webhooks';
import { classifyStatus, parseRetryAfter, type AttemptOutcome } from './retry-policy';

export interface WebhookSenderOptions {
  timeoutMs: number;
  /**
   * WEBHOOK_CONNECT_TIMEOUT_MS: a new connection must finish TCP connect and the TLS handshake
   * this long after its address is known (default timeoutMs). A peer that accepts TCP and never
   * answers the handshake holds a slot this long, not the whole attempt timeout.
   */
  connectTimeoutMs?: number;
  allowPrivateTargets: boolean;
  /** Sockets per receiver origin (keep-alive pool size); endpoints sharing a host share its pool. */
  maxSocketsPerOrigin: number;
  /**
   * WEBHOOK_MAX_IDLE_SOCKETS: idle keep-alive sockets kept over all receiver origins together
   * (default unbounded: each origin keeps up to maxSocketsPerOrigin). Past it, the least recently
   * used idle socket is closed; the next connection to its origin resumes the TLS session.
   */
  maxIdleSockets?: number;
  /** Longest wait for a socket of this process before the attempt is deferred (default timeoutMs). */
  slotWaitMs?: number;
  /** An extra trusted CA, added to Node's roots (tests). Production uses NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer;
  /** WEBHOOK_DNS_SERVERS: where host names are resolved (default: the system's resolvers). */
  dnsServers?: string[];
  /** WEBHOOK_DNS_TIMEOUT_MS (default 3000). */
  dnsTimeoutMs?: number;
  /** Host name → addresses (tests); default: a WebhookDnsResolver (c-ares, bounded, cached), never dns.lookup. */
  resolve?: Resolver;
}

export interface OutgoingWebhook {
  url: string;
  secret: string;
  /** `standard-webhooks` adds the webhook-* headers to the spec's; default `service-v1` (the spec's only). */
  signatureFormat?: SignatureFormat;
  /** The secret a rotation replaced, while its window runs: a second webhook-signature entry. */
  previousSecret?: string | null;
  eventType: string;
  eventId: string;
  /** The delivery's stored bytes, identical on every attempt. */
  body: Buffer;
}

export interface AttemptResult {
  /** X-Service-Delivery-ID of this attempt (UUIDv7: the attempt log sorts by it). */
  deliveryId: string;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /**
   * `deferred`: the request never left this process in time (it waited for a local socket slot).
   * Not an attempt of the endpoint: nothing was sent, no failure is counted against it.
   */
  outcome: AttemptOutcome | 'deferred';
  retryAfterSeconds: number | null;
}

/** Response bodies are not read; a receiver that streams more than this loses the socket. */
const DISCARD_LIMIT_BYTES = 64 * 1024;
const DISCARD_TIMEOUT_MS = 2000;
const AGENT_IDLE_MS = 5 * 60_000;
/** TLS sessions kept per origin for resumption (one per agent name is what the agent stores; a little room for servername variants). */
const TLS_SESSIONS_PER_ORIGIN = 4;

class AttemptTimeout extends Error {}
class ConnectTimeout extends Error {}
class LocalSlotTimeout extends Error {}

/**
 * One HTTPS POST per attempt, exactly as spec §6.3–6.4: fresh timestamp and signature with the
 * secret it is given, a new delivery id, the stored body bytes. Keep-alive agents per receiver
 * origin (a TLS handshake per delivery would cap throughput); redirects are never followed; the
 * response body is discarded unread; connect + TLS + response headers must fit in the timeout, and
 * a new connection's TCP connect + TLS handshake in the (shorter) connect timeout.
 */
export class WebhookSender {
  private readonly agents = new Map<string, { agent: Agent; lastUsed: number }>();
  /** Idle keep-alive sockets of every agent, least recently freed first (Map order): the global budget. */
  private readonly idle = new Map<Socket, Agent>();
  private readonly watched = new WeakSet<Socket>();
  private readonly sweepTimer: NodeJS.Timeout;
  /**
   * Built once and shared by every connection. Without it, `tls.connect` builds a SecureContext
   * (an OpenSSL SSL_CTX, ~30 kB outside the V8 heap) per connection, freed only when a major GC
   * collects its wrapper: 1,000 receiver origins left ~30 MB of them behind. Passing `ca` itself
   * would also make the agent hash every CA certificate into its connection-pool key on every
   * request (a fifth of the CPU at 1000 deliveries/s). The default roots include NODE_EXTRA_CA_CERTS.
   */
  private readonly secureContext: SecureContext;
  private readonly lookup: LookupFunction;

  constructor(private readonly options: WebhookSenderOptions) {
    let resolve = options.resolve;
    if (!resolve) {
      const dns = new WebhookDnsResolver({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs ?? 3000 });
      resolve = (hostname) => dns.resolve(hostname);
    }
    // Always our lookup, private targets allowed or not: dns.lookup runs on the libuv thread pool
    // without a timeout, so one tenant's dead DNS would stall every tenant's connections.
    this.lookup = vettedLookup(resolve, options.allowPrivateTargets);
    this.secureContext = createSecureContext(options.ca ? { ca: [...rootCertificates, options.ca.toString()] } : {});
    this.sweepTimer = setInterval(() => this.sweep(), 60_000);
    this.sweepTimer.unref();
  }

  async send(webhook: OutgoingWebhook): Promise<AttemptResult> {
    const deliveryId = newId();
    const attemptedAt = new Date();
    const started = performance.now();
    const result = (partial: Omit<AttemptResult, 'deliveryId' | 'attemptedAt' | 'durationMs'>): AttemptResult => ({
      deliveryId,
      attemptedAt,
      durationMs: Math.round(performance.now() - started),
      ...partial,
    });
    const failed = (error: string): AttemptResult => result({ statusCode: null, error, outcome: 'failed', retryAfterSeconds: null });

    let url: URL;
    try {
      url = new URL(webhook.url);
    } catch {
      return failed('invalid address');
    }
    if (url.protocol !== 'https:') return failed('only https:// addresses are accepted');
    const host = hostOf(url);
    // IP literals never go through `lookup`: check them here.
    if (!this.options.allowPrivateTargets && isIP(host) && isPrivateAddress(host)) {
      return failed(`target refused: ${host} is a private, loopback, link-local or reserved address`);
    }

    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {
      'Content-Type': WEBHOOK_CONTENT_TYPE,
      'Content-Length': String(webhook.body.length),
      'User-Agent': WEBHOOK_USER_AGENT,
      'X-Service-Event': webhook.eventType,
      'X-Service-Event-ID': webhook.eventId,
      'X-Service-Delivery-ID': deliveryId,
      'X-Service-Timestamp': timestamp,
      'X-Service-Signature': signWebhook(webhook.secret, timestamp, webhook.body),
    };
    if (webhook.signatureFormat === 'standard-webhooks') Object.assign(headers, standardWebhookHeaders(webhook, timestamp));

    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      let deadline: NodeJS.Timeout | null = null;
      let connectDeadline: NodeJS.Timeout | null = null;
      const settle = (value: AttemptResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(slotWait);
        if (deadline) clearTimeout(deadline);
        if (connectDeadline) clearTimeout(connectDeadline);
        resolve(value);
      };
      const req = request(url, { method: 'POST', agent: this.agentFor(url), headers }, (res) => {
        const status = res.statusCode ?? 0;
        discard(res);
        const redirect = status >= 300 && status < 400;
        settle(
          result({
            statusCode: status,
            error: redirect ? `redirect not followed (HTTP ${status})` : null,
            outcome: classifyStatus(status),
            retryAfterSeconds: status === 429 || status === 503 ? parseRetryAfter(headerValue(res.headers['retry-after'])) : null,
          }),
        );
      });
      // The endpoint's time (DNS, connect, TLS, response headers) starts when the request has a
      // socket; waiting for one of this process's sockets is bounded separately and is not the
      // endpoint's failure.
      // A request destroyed before it has a socket reports its error only once it gets one: settle now.
      const slotWait = setTimeout(() => {
        settle(result({ statusCode: null, error: 'waited too long for a local connection slot', outcome: 'deferred', retryAfterSeconds: null }));
        req.destroy(new LocalSlotTimeout());
      }, this.options.slotWaitMs ?? this.options.timeoutMs);
      req.once('socket', (socket) => {
        // A pooled socket taken for this request is no longer idle.
        this.idle.delete(socket);
        clearTimeout(slotWait);
        if (settled) return;
        deadline = setTimeout(() => req.destroy(new AttemptTimeout(`timeout after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
        if (socket.connecting) this.boundConnect(socket, isIP(host) !== 0, req, (timer) => (connectDeadline = timer));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof LocalSlotTimeout) return;
        if (error.code === TARGET_REFUSED) return settle(failed(`target refused: ${error.message}`));
        // Timeouts and connection errors (refused, reset, DNS, TLS) are retried (spec §6.5).
        settle(result({ statusCode: null, error: error.message || error.code || 'connection error', outcome: 'retry', retryAfterSeconds: null }));
      });
      req.end(webhook.body);
    });
  }

  /**
   * Bounds a new connection's TCP connect + TLS handshake: from the moment its address is known
   * (the resolver has its own deadline, WEBHOOK_DNS_TIMEOUT_MS) to `secureConnect`. The timer is
   * armed at once with room for the DNS deadline too, and re-armed when the lookup answers.
   */
  private boundConnect(socket: Socket, literalAddress: boolean, req: ClientRequest, keep: (timer: NodeJS.Timeout) => void): void {
    const connectMs = this.options.connectTimeoutMs ?? this.options.timeoutMs;
    let timer: NodeJS.Timeout;
    const arm = (ms: number): void => {
      clearTimeout(timer);
      timer = setTimeout(() => req.destroy(new ConnectTimeout(`connect timeout: no TLS connection within ${connectMs} ms`)), ms);
      keep(timer);
    };
    arm(literalAddress ? connectMs : connectMs + (this.options.dnsTimeoutMs ?? 3000));
    socket.once('lookup', () => arm(connectMs));
    socket.once('secureConnect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  }

  close(): void {
    clearInterval(this.sweepTimer);
    for (const { agent } of this.agents.values()) agent.destroy();
    this.agents.clear();
    this.idle.clear();
  }

  /** Idle keep-alive sockets held now, over every origin (at most maxIdleSockets). */
  idleSockets(): number {
    let n = 0;
    for (const { agent } of this.agents.values()) for (const list of Object.values(agent.freeSockets)) n += list?.length ?? 0;
    return n;
  }

  /**
   * After the agent pooled a socket that went free (its own 'free' listener runs first): count it
   * as idle and close the least recently used idle sockets past the budget.
   */
  private onFree(agent: Agent, socket: Socket): void {
    const budget = this.options.maxIdleSockets;
    if (budget === undefined || socket.destroyed) return;
    if (!pooled(agent, socket)) return; // handed straight to a waiting request, or closed by the agent
    if (!this.watched.has(socket)) {
      this.watched.add(socket);
      socket.once('close', () => this.idle.delete(socket));
    }
    this.idle.delete(socket);
    this.idle.set(socket, agent);
    for (const [oldest, owner] of this.idle) {
      if (this.idle.size <= budget) break;
      this.idle.delete(oldest);
      // Taken from the pool by a request whose 'socket' event has not fired yet: in use, not idle.
      if (pooled(owner, oldest)) oldest.destroy(); // the agent drops it from its free list on 'close'
    }
  }

  private agentFor(url: URL): Agent {
    const entry = this.agents.get(url.origin);
    if (entry) {
      entry.lastUsed = Date.now();
      return entry.agent;
    }
    const agent = new Agent({
      keepAlive: true,
      keepAliveMsecs: 1000,
      maxSockets: this.options.maxSocketsPerOrigin,
      maxFreeSockets: this.options.maxSocketsPerOrigin,
      scheduling: 'lifo',
      timeout: 60_000,
      // TLS session resumption: a connection that replaces a closed idle one skips the full handshake.
      maxCachedSessions: TLS_SESSIONS_PER_ORIGIN,
      secureContext: this.secureContext,
      lookup: this.lookup,
    });
    agent.on('free', (socket: Socket) => this.onFree(agent, socket));
    this.agents.set(url.origin, { agent, lastUsed: Date.now() });
    return agent;
  }

  private sweep(): void {
    const cutoff = Date.now() - AGENT_IDLE_MS;
    for (const [origin, { agent, lastUsed }] of this.agents) {
      if (lastUsed < cutoff) {
        agent.destroy();
        this.agents.delete(origin);
        for (const [socket, owner] of this.idle) if (owner === agent) this.idle.delete(socket);
      }
    }
  }
}

/**
 * The Standard Webhooks headers, beside the spec's (unchanged): the event id (the same on every
 * attempt, as the format's message id is), the same timestamp, and a signature per secret in force,
 * the current one first.
 */
function standardWebhookHeaders(webhook: OutgoingWebhook, timestamp: string): Record<string, string> {
  const secrets = webhook.previousSecret ? [webhook.secret, webhook.previousSecret] : [webhook.secret];
  return {
    [STANDARD_WEBHOOK_HEADERS.id]: webhook.eventId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: timestamp,
    [STANDARD_WEBHOOK_HEADERS.signature]: standardWebhookSignatureHeader(secrets, webhook.eventId, timestamp, webhook.body),
  };
}

/** Whether the agent holds this socket in its free (idle keep-alive) pool. */
function pooled(agent: Agent, socket: Socket): boolean {
  return Object.values(agent.freeSockets).some((list) => list?.includes(socket));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Drains and drops the response body so the socket can be reused, within bounds. */
function discard(res: IncomingMessage): void {
  let bytes = 0;
  const timer = setTimeout(() => res.destroy(), DISCARD_TIMEOUT_MS);
  timer.unref();
  res.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > DISCARD_LIMIT_BYTES) res.destroy();
  });
  res.on('close', () => clearTimeout(timer));
  res.on('error', () => undefined);
}
