import { getServers, promises as dnsPromises, type RecordWithTtl } from 'node:dns';
import { isIP } from 'node:net';

/** The two queries the resolver makes; `dns.promises.Resolver` in production, a fake in unit tests. */
export interface DnsBackend {
  resolve4(hostname: string, options: { ttl: true }): Promise<RecordWithTtl[]>;
  resolve6(hostname: string, options: { ttl: true }): Promise<RecordWithTtl[]>;
}

export interface WebhookDnsResolverOptions {
  /** `ip` or `ip:port` (`[v6]:port`); default: the system's resolvers (dns.getServers()). */
  servers?: string[];
  /** Deadline of one resolution, whatever the servers do. */
  timeoutMs: number;
  /** Answers are kept for their TTL, at most this long. */
  maxTtlMs?: number;
  /** ...and at least this long (a TTL of 0 would send every attempt to the DNS). */
  minTtlMs?: number;
  /** A failure (no such name, no answer) is remembered this long: a dead name costs one query, not one per attempt. */
  negativeTtlMs?: number;
  /** After one address family answered, how long the other one may still take. */
  familyGraceMs?: number;
  maxEntries?: number;
  backend?: DnsBackend;
  now?: () => number;
}

/** Why a host name gave no address; `code` is ENOTFOUND (no such name or no address) or ETIMEOUT (no answer in time). */
export class DnsLookupError extends Error {
  constructor(
    readonly code: 'ENOTFOUND' | 'ETIMEOUT',
    message: string,
  ) {
    super(message);
  }
}

interface CacheEntry {
  expires: number;
  addresses?: string[];
  error?: DnsLookupError;
}

const TIMEOUT_CODES = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ESERVFAIL', 'EREFUSED', 'ECANCELLED', 'EDESTRUCTION']);

/**
 * Resolves webhook host names without Node's thread pool: `dns.lookup` (getaddrinfo) runs on the
 * four libuv threads with no timeout, so a tenant whose DNS stops answering could stall every
 * connection of every tenant. This uses c-ares (`dns.promises.Resolver`, asynchronous, its own
 * `timeout`/`tries`) under a hard deadline, shares one query among concurrent callers, and keeps
 * answers for their TTL (capped) and failures briefly. `/etc/hosts` is not read; `localhost`
 * names are loopback (RFC 6761) and IP literals are returned as they are.
 */
export class WebhookDnsResolver {
  private readonly backend: DnsBackend;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<string[]>>();
  private readonly now: () => number;
  private readonly maxTtlMs: number;
  private readonly minTtlMs: number;
  private readonly negativeTtlMs: number;
  private readonly familyGraceMs: number;
  private readonly maxEntries: number;

  constructor(private readonly options: WebhookDnsResolverOptions) {
    this.now = options.now ?? Date.now;
    this.maxTtlMs = options.maxTtlMs ?? 60_000;
    this.minTtlMs = options.minTtlMs ?? 1_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 5_000;
    this.familyGraceMs = options.familyGraceMs ?? 250;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.backend = options.backend ?? createBackend(options.servers ?? getServers(), options.timeoutMs);
  }

  /** Every address of `hostname` (IPv4 first); rejects with a DnsLookupError. */
  async resolve(hostname: string): Promise<string[]> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
    if (isIP(host)) return [host];
    if (host === 'localhost' || host.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    const cached = this.cache.get(host);
    if (cached && cached.expires > this.now()) {
      if (cached.error) throw cached.error;
      return cached.addresses as string[];
    }
    const pending = this.inFlight.get(host);
    if (pending) return pending;
    const query = this.query(host).finally(() => this.inFlight.delete(host));
    this.inFlight.set(host, query);
    return query;
  }

  /** Entries kept (tests, metrics). */
  get size(): number {
    return this.cache.size;
  }

  private async query(host: string): Promise<string[]> {
    try {
      const { addresses, ttlMs } = await this.both(host);
      this.remember(host, { expires: this.now() + ttlMs, addresses });
      return addresses;
    } catch (error) {
      const failure = error instanceof DnsLookupError ? error : new DnsLookupError('ENOTFOUND', 'DNS lookup failed');
      this.remember(host, { expires: this.now() + this.negativeTtlMs, error: failure });
      throw failure;
    }
  }

  /**
   * A and AAAA in parallel, under one deadline. Once one family has addresses the other gets
   * `familyGraceMs` more, so a server that never answers AAAA does not hold every connection.
   */
  private both(host: string): Promise<{ addresses: string[]; ttlMs: number }> {
    return new Promise((resolve, reject) => {
      const results: Array<RecordWithTtl[] | null> = [null, null];
      const errors: Array<NodeJS.ErrnoException | null> = [null, null];
      let settled = false;
      let grace: NodeJS.Timeout | null = null;
      const finish = (): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (grace) clearTimeout(grace);
        const records = [...(results[0] ?? []), ...(results[1] ?? [])];
        if (records.length > 0) {
          const ttlMs = Math.min(this.maxTtlMs, Math.max(this.minTtlMs, Math.min(...records.map((r) => r.ttl)) * 1000));
          return resolve({ addresses: records.map((r) => r.address), ttlMs });
        }
        const timedOut = errors.some((e) => e === null || TIMEOUT_CODES.has(e.code ?? ''));
        reject(timedOut ? new DnsLookupError('ETIMEOUT', 'DNS lookup timed out') : new DnsLookupError('ENOTFOUND', 'DNS lookup found no address'));
      };
      const deadline = setTimeout(finish, this.options.timeoutMs);
      const done = (index: number, records: RecordWithTtl[] | null, error: NodeJS.ErrnoException | null): void => {
        results[index] = records;
        errors[index] = error;
        if (results.every((r, i) => r !== null || errors[i] !== null)) return finish();
        if (records && records.length > 0 && !grace && !settled) grace = setTimeout(finish, this.familyGraceMs);
      };
      this.backend.resolve4(host, { ttl: true }).then((r) => done(0, r, null), (e: NodeJS.ErrnoException) => done(0, null, e));
      this.backend.resolve6(host, { ttl: true }).then((r) => done(1, r, null), (e: NodeJS.ErrnoException) => done(1, null, e));
    });
  }

  private remember(host: string, entry: CacheEntry): void {
    this.cache.delete(host);
    if (this.cache.size >= this.maxEntries) {
      // Oldest first (insertion order); expired entries go before live ones would.
      const now = this.now();
      for (const [key, value] of this.cache) {
        if (value.expires <= now || this.cache.size >= this.maxEntries) this.cache.delete(key);
        if (this.cache.size < this.maxEntries * 0.9) break;
      }
    }
    this.cache.set(host, entry);
  }
}

function createBackend(servers: string[], timeoutMs: number): DnsBackend {
  // c-ares retries on its own (`tries`, per server); the resolver's deadline bounds the whole.
  const resolver = new dnsPromises.Resolver({ timeout: Math.max(50, Math.floor(timeoutMs / 2)), tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);
  return resolver;
}
