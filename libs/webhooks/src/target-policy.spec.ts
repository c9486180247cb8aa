import type { LookupOptions } from 'node:dns';
import { EMBEDDED_PRIVATE_IPV4, PUBLIC_ADDRESSES, sampleAddresses, SPECIAL_PURPOSE_IPV4, SPECIAL_PURPOSE_IPV6 } from '../../../test/support/special-purpose-addresses';
import { assertPublicTarget, isPrivateAddress, parseWebhookUrl, TARGET_REFUSED, vettedLookup, type LookupFunction } from './target-policy';

describe('webhook target policy', () => {
  describe.each([
    ['IPv4', SPECIAL_PURPOSE_IPV4],
    ['IPv6', SPECIAL_PURPOSE_IPV6],
  ])('every %s special-purpose range (IANA registry and the extra ones)', (_family, table) => {
    it.each(table.map((range) => [range.cidr, range.name, sampleAddresses(range.cidr)] as const))('refuses %s (%s): %j', (_cidr, _name, addresses) => {
      for (const address of addresses) expect({ address, private: isPrivateAddress(address) }).toEqual({ address, private: true });
    });
  });

  it.each(EMBEDDED_PRIVATE_IPV4)('refuses a private IPv4 address embedded in IPv6: %s %s', (_form, address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['::', '0.0.0.0', '169.254.169.254', 'fd00:ec2::254', 'fe80::1%eth0', '2606:4700::1%eth0', 'not-an-ip', '', '1.2.3', '::ffff:999.0.0.1'])('refuses %j', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(PUBLIC_ADDRESSES)('accepts the public address %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('accepts only https addresses without credentials or fragments', () => {
    expect(parseWebhookUrl(' https://hooks.example.com/in ').toString()).toBe('https://hooks.example.com/in');
    for (const bad of ['http://hooks.example.com/', 'wss://hooks.example.com/', 'https://u:p@hooks.example.com/', 'https://hooks.example.com/#x', 'hooks.example.com', '']) {
      expect(() => parseWebhookUrl(bad)).toThrow();
    }
    expect(() => parseWebhookUrl(`https://hooks.example.com/${'a'.repeat(2100)}`)).toThrow(/longer than/);
  });

  it('refuses a name if any of its addresses is private, and a name that does not resolve, naming neither the address nor why', async () => {
    const resolver = (answers: string[]) => async () => answers;
    const refusal = async (url: string, resolve: (host: string) => Promise<string[]>): Promise<string> => {
      try {
        await assertPublicTarget(new URL(url), resolve);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(await refusal('https://x.example/', resolver(['93.184.216.34']))).toBe('accepted');
    expect(await refusal('https://x.example/', resolver(['93.184.216.34', '10.0.0.1']))).toBe('this address is not allowed');
    expect(await refusal('https://x.example/', resolver([]))).toBe('this address cannot be reached');
    expect(await refusal('https://x.example/', async () => Promise.reject(new Error('queryA ENOTFOUND x.example')))).toBe('this address cannot be reached');
    expect(await refusal('https://[::1]/', resolver([]))).toBe('this address is not allowed');
    expect(await refusal('https://169.254.169.254/', resolver([]))).toBe('this address is not allowed');
    expect(await refusal('https://[::7f00:1]/', resolver([]))).toBe('this address is not allowed');
    expect(await refusal('https://x.example/', resolver(['::7f00:1']))).toBe('this address is not allowed');
  });

  describe('vettedLookup (connect time)', () => {
    const resolving = (answers: string[]) => async () => answers;
    const run = (lookup: LookupFunction, options: LookupOptions) =>
      new Promise<{ error: NodeJS.ErrnoException | null; result: unknown; family?: number }>((resolve) =>
        lookup('x.example', options, (error, result, family) => resolve({ error, result, family })),
      );

    it('hands only public addresses to the socket', async () => {
      const lookup = vettedLookup(resolving(['127.0.0.1', '93.184.216.34']), false);
      expect(await run(lookup, { all: true })).toMatchObject({ error: null, result: [{ address: '93.184.216.34', family: 4 }] });
      expect(await run(lookup, {})).toMatchObject({ error: null, result: '93.184.216.34', family: 4 });
    });

    it('hands every address over when private targets are allowed, filtered by the family asked for', async () => {
      const lookup = vettedLookup(resolving(['127.0.0.1', '::1']), true);
      expect(await run(lookup, { all: true })).toMatchObject({ error: null, result: [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }] });
      expect(await run(lookup, { family: 6 })).toMatchObject({ error: null, result: '::1', family: 6 });
    });

    it('fails with EWEBHOOKTARGETREFUSED when only private addresses remain', async () => {
      const lookup = vettedLookup(resolving(['169.254.169.254', 'fd00:ec2::254']), false);
      const { error } = await run(lookup, { all: true });
      expect(error?.code).toBe(TARGET_REFUSED);
      // DNS rebinding to an IPv4-compatible or NAT64 form of loopback is refused the same way.
      expect((await run(vettedLookup(resolving(['::7f00:1', '64:ff9b::7f00:1']), false), {})).error?.code).toBe(TARGET_REFUSED);
    });

    it('reports a DNS failure by its code, without resolver details', async () => {
      const lookup = vettedLookup(async () => Promise.reject(Object.assign(new Error('queryA ETIMEOUT x.example'), { code: 'ETIMEOUT' })), false);
      const { error } = await run(lookup, {});
      expect(error).toMatchObject({ code: 'ETIMEOUT', message: 'DNS lookup timed out' });
    });
  });
});
