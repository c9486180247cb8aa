import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be sent (SSRF guard): https only, and only to a public unicast address
 * unless WEBHOOK_ALLOW_PRIVATE_TARGETS. Checked when an address is saved and again on every
 * connect, because DNS can change between the two (rebinding); both use `isPrivateAddress`.
 *
 * The classification is ipaddr.js's `range()`, which covers the IANA special-purpose registries
 * for IPv4 and IPv6 (private, loopback, link-local, CGNAT, documentation, benchmarking, AS112, AMT,
 * ORCHID, Teredo, 6to4, NAT64, SRv6, …) and multicast: anything but `unicast` is refused. It is
 * supplemented only where the registries say more than it does:
 * - an IPv6 address must lie in 2000::/3, the only global unicast space IANA has allocated
 *   (iana-ipv6-address-space). ipaddr.js calls everything else outside its named ranges
 *   `unicast`, including the deprecated IPv4-compatible ::/96 (`::7f00:1` is 127.0.0.1 on a
 *   host that still routes it), ::/8 and the Dummy IPv6 Prefix 100:0:0:1::/64;
 * - an IPv4 address carried in IPv4-mapped ::ffff:0:0/96 or the NAT64 well-known prefix
 *   64:ff9b::/96 is judged as that IPv4 address (public ones are reachable through them; private
 *   ones are not allowed). Every other embedding — IPv4-compatible, IPv4-translated, 6to4, Teredo,
 *   local-use NAT64 64:ff9b:1::/48 — is refused whatever it carries.
 * The table-driven test over both registries is libs/webhooks/src/target-policy.spec.ts.
 */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function isPublicIpv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

function isPublicIpv6(address: ipaddr.IPv6): boolean {
  if (address.isIPv4MappedAddress()) return isPublicIpv4(address.toIPv4Address());
  if (address.match(NAT64_WELL_KNOWN)) return isPublicIpv4(ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4);
  if (!address.match(GLOBAL_UNICAST)) return false;
  return address.range() === 'unicast';
}

/** True for every address a webhook must not reach, and for anything that is not an IP address. */
export function isPrivateAddress(address: string): boolean {
  // Not an address at all, or one with a zone id (`fe80::1%eth0`: no webhook target has one): refuse.
  if (!isIP(address) || address.includes('%')) return true;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? !isPublicIpv4(parsed as ipaddr.IPv4) : !isPublicIpv6(parsed as ipaddr.IPv6);
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
