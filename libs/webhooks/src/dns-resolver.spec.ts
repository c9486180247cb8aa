import type { RecordWithTtl } from 'node:dns';
import { TestDnsServer } from '../../../test/support/dns-server';
import { DnsLookupError, WebhookDnsResolver, type DnsBackend } from './dns-resolver';

type Answer = RecordWithTtl[] | NodeJS.ErrnoException | 'never';

/** A backend that answers from a table and counts its queries. */
function fakeBackend(table: Record<string, { a?: Answer; aaaa?: Answer }>): DnsBackend & { queries: string[] } {
  const queries: string[] = [];
  const answer = (host: string, family: 'a' | 'aaaa'): Promise<RecordWithTtl[]> => {
    queries.push(`${family}:${host}`);
    const entry = table[host]?.[family] ?? Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    if (entry === 'never') return new Promise(() => undefined);
    return entry instanceof Error ? Promise.reject(entry) : Promise.resolve(entry);
  };
  return { queries, resolve4: async (host) => answer(host, 'a'), resolve6: async (host) => answer(host, 'aaaa') };
}

const noData = (): NodeJS.ErrnoException => Object.assign(new Error('ENODATA'), { code: 'ENODATA' });

describe('WebhookDnsResolver', () => {
  let clock = 1_000_000;
  const now = (): number => clock;

  it('returns IP literals and localhost names without a query', async () => {
    const backend = fakeBackend({});
    const resolver = new WebhookDnsResolver({ timeoutMs: 100, backend, now });
    expect(await resolver.resolve('93.184.216.34')).toEqual(['93.184.216.34']);
    expect(await resolver.resolve('[2606:4700::1]')).toEqual(['2606:4700::1']);
    expect(await resolver.resolve('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(await resolver.resolve('api.LOCALHOST.')).toEqual(['127.0.0.1', '::1']);
    expect(backend.queries).toEqual([]);
  });

  it('keeps an answer for its TTL (capped), shares one query among concurrent callers, and asks again once it expired', async () => {
    const backend = fakeBackend({ 'hooks.example': { a: [{ address: '93.184.216.34', ttl: 300 }], aaaa: [{ address: '2606:2800:220:1::1', ttl: 120 }] } });
    const resolver = new WebhookDnsResolver({ timeoutMs: 100, maxTtlMs: 30_000, backend, now });
    const answers = await Promise.all([resolver.resolve('hooks.example'), resolver.resolve('HOOKS.example'), resolver.resolve('hooks.example.')]);
    for (const addresses of answers) expect(addresses).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
    expect(backend.queries).toEqual(['a:hooks.example', 'aaaa:hooks.example']);
    clock += 29_000;
    await resolver.resolve('hooks.example');
    expect(backend.queries).toHaveLength(2);
    clock += 2_000; // past the 30 s cap, though the records said 120 s
    await resolver.resolve('hooks.example');
    expect(backend.queries).toHaveLength(4);
  });

  it('honours a short TTL, with a floor', async () => {
    const backend = fakeBackend({ 'short.example': { a: [{ address: '93.184.216.34', ttl: 0 }], aaaa: noData() } });
    const resolver = new WebhookDnsResolver({ timeoutMs: 100, minTtlMs: 1_000, backend, now });
    await resolver.resolve('short.example');
    clock += 900;
    await resolver.resolve('short.example');
    expect(backend.queries).toHaveLength(2);
    clock += 200;
    await resolver.resolve('short.example');
    expect(backend.queries).toHaveLength(4);
  });

  it('fails a name that does not exist with ENOTFOUND and remembers the failure briefly', async () => {
    const backend = fakeBackend({});
    const resolver = new WebhookDnsResolver({ timeoutMs: 100, negativeTtlMs: 5_000, backend, now });
    await expect(resolver.resolve('gone.example')).rejects.toMatchObject({ code: 'ENOTFOUND', message: 'DNS lookup found no address' });
    await expect(resolver.resolve('gone.example')).rejects.toBeInstanceOf(DnsLookupError);
    expect(backend.queries).toHaveLength(2);
    clock += 5_001;
    await expect(resolver.resolve('gone.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(backend.queries).toHaveLength(4);
  });

  it('gives up on a server that never answers at its deadline (ETIMEOUT), and on one that refuses', async () => {
    const backend = fakeBackend({
      'silent.example': { a: 'never', aaaa: 'never' },
      'servfail.example': { a: Object.assign(new Error('ESERVFAIL'), { code: 'ESERVFAIL' }), aaaa: noData() },
    });
    const resolver = new WebhookDnsResolver({ timeoutMs: 50, backend });
    const started = Date.now();
    await expect(resolver.resolve('silent.example')).rejects.toMatchObject({ code: 'ETIMEOUT', message: 'DNS lookup timed out' });
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(resolver.resolve('servfail.example')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });

  it('does not wait for a family that never answers once the other one did', async () => {
    const backend = fakeBackend({ 'v4only.example': { a: [{ address: '93.184.216.34', ttl: 60 }], aaaa: 'never' } });
    const resolver = new WebhookDnsResolver({ timeoutMs: 5_000, familyGraceMs: 20, backend });
    const started = Date.now();
    expect(await resolver.resolve('v4only.example')).toEqual(['93.184.216.34']);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('bounds its cache', async () => {
    const table: Record<string, { a: RecordWithTtl[] }> = {};
    for (let i = 0; i < 50; i++) table[`n${i}.example`] = { a: [{ address: '93.184.216.34', ttl: 60 }] };
    const resolver = new WebhookDnsResolver({ timeoutMs: 100, maxEntries: 20, familyGraceMs: 0, backend: fakeBackend(table), now });
    for (let i = 0; i < 50; i++) await resolver.resolve(`n${i}.example`);
    expect(resolver.size).toBeLessThanOrEqual(20);
  });

  describe('over the wire (c-ares against a DNS server on loopback)', () => {
    let dns: TestDnsServer;
    beforeAll(async () => {
      dns = await TestDnsServer.start({ answers: { 'hooks.wire.test': ['93.184.216.34'] }, silent: ['silent.wire.test'], ttlSeconds: 60 });
    });
    afterAll(() => dns.close());

    it('resolves from the configured server, and times out on a name it never answers without holding up another name', async () => {
      const resolver = new WebhookDnsResolver({ servers: [dns.address], timeoutMs: 400 });
      const silent = resolver.resolve('silent.wire.test').catch((error: unknown) => error);
      const started = Date.now();
      expect(await resolver.resolve('hooks.wire.test')).toEqual(['93.184.216.34']);
      expect(Date.now() - started).toBeLessThan(300);
      expect(await silent).toMatchObject({ code: 'ETIMEOUT' });
      await expect(resolver.resolve('missing.wire.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
      expect(dns.queriesFor('hooks.wire.test')).toBe(2); // A and AAAA, once: then the cache answers
      await resolver.resolve('hooks.wire.test');
      expect(dns.queriesFor('hooks.wire.test')).toBe(2);
    });
  });
});
