import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent (SSRF guard): https only, and never to a private, loopback,
 * link-local, CGNAT, unique-local, multicast, reserved or cloud metadata address unless
 * WEBHOOK_ALLOW_PRIVATE_TARGETS. Checked when an address is saved and again on every connect,
 * because DNS can change between the two (rebinding).
 */
const BLOCKED = new BlockList();
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes 169.254.169.254 (metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const V6: Array<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2001::', 32], // Teredo (embeds an IPv4 address)
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['fc00::', 7], // unique-local, includes fd00:ec2::254 (metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];
for (const [net, prefix] of V4) BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) BLOCKED.addSubnet(net, prefix, 'ipv6');

/** IPv4 embedded in NAT64 (64:ff9b::/96) is checked as IPv4; IPv4-mapped is handled by BlockList. */
function embeddedIpv4(address: string): string | null {
  const match = /^64:ff9b::(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/i.exec(address);
  if (!match) return null;
  if (match[3]) return match[3];
  const high = parseInt(match[1], 16);
  const low = parseInt(match[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return true; // not an address at all: refuse
}

export class WebhookTargetError extends Error {}

export const MAX_URL_LENGTH = 2048;

/** Parses and checks the shape of a webhook address; no DNS. */
export function parseWebhookUrl(raw: string): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw new WebhookTargetError('an https:// address is required');
  if (raw.length > MAX_URL_LENGTH) throw new WebhookTargetError(`the address is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WebhookTargetError('not a valid URL');
  }
  if (url.protocol !== 'https:') throw new WebhookTargetError('only https:// addresses are accepted');
  if (url.username || url.password) throw new WebhookTargetError('credentials in the address are not accepted');
  if (url.hash) throw new WebhookTargetError('a fragment (#...) is not accepted');
  if (!url.hostname) throw new WebhookTargetError('the address has no host');
  return url;
}

/** `[::1]` → `::1`: URL keeps the brackets of IPv6 literals. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type Resolver = (hostname: string) => Promise<string[]>;

/**
 * What a stranger may learn from a refused registration: only that the address is not allowed
 * (a private or forbidden target) or cannot be reached (no such name, no answer). Never which
 * address a name resolved to, nor whether the name exists: that would make registration a probe
 * of the internal network and its DNS.
 */
export const TARGET_NOT_ALLOWED = 'this address is not allowed';
export const TARGET_UNREACHABLE = 'this address cannot be reached';

/**
 * Registration-time check: every address the host resolves to must be public (an attacker's
 * name that answers both a public and a private address is refused outright).
 */
export async function assertPublicTarget(url: URL, resolve: Resolver): Promise<void> {
  const host = hostOf(url);
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new WebhookTargetError(TARGET_NOT_ALLOWED);
    return;
  }
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new WebhookTargetError(TARGET_UNREACHABLE);
  }
  if (addresses.length === 0) throw new WebhookTargetError(TARGET_UNREACHABLE);
  if (addresses.some(isPrivateAddress)) throw new WebhookTargetError(TARGET_NOT_ALLOWED);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

export const TARGET_REFUSED = 'EWEBHOOKTARGETREFUSED';

/**
 * The `lookup` of the delivery agents: resolves with `resolve` (asynchronous, bounded; never
 * `dns.lookup` and its thread pool) and, unless private targets are allowed, hands only public
 * addresses to the socket, so a name that changed to a private address after registration is
 * refused at connect time (DNS rebinding). The socket connects to the vetted address; TLS SNI and
 * the Host header keep the host name.
 */
export function vettedLookup(resolve: Resolver, allowPrivateTargets: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const wanted = resolved.filter((address) => !options.family || isIP(address) === options.family);
        const addresses = allowPrivateTargets ? wanted : wanted.filter((address) => !isPrivateAddress(address));
        if (addresses.length === 0) {
          const error =
            wanted.length > 0
              ? Object.assign(new Error('the host resolves only to private, loopback, link-local or reserved addresses'), { code: TARGET_REFUSED })
              : Object.assign(new Error('DNS lookup found no address'), { code: 'ENOTFOUND' });
          return callback(error, options.all ? [] : '', undefined);
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) return callback(null, entries);
        callback(null, entries[0].address, entries[0].family);
      },
      (error: NodeJS.ErrnoException) => {
        const code = error.code ?? 'ENOTFOUND';
        callback(Object.assign(new Error(code === 'ETIMEOUT' ? 'DNS lookup timed out' : 'DNS lookup found no address'), { code }), options.all ? [] : '', undefined);
      },
    );
  };
}
