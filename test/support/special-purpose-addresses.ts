import ipaddr from 'ipaddr.js';

/**
 * The IANA special-purpose address registries (iana-ipv4-special-registry and
 * iana-ipv6-special-registry, every entry as of 2025), plus the ranges outside them that a webhook
 * must never reach: IPv4 multicast, IPv6 multicast, the deprecated IPv4-compatible ::/96 and
 * site-local fec0::/10, and everything outside the IPv6 global unicast space 2000::/3. The SSRF
 * tests refuse the first, a middle and the last address of each.
 *
 * Two registry entries embed an IPv4 address that the policy follows instead of refusing the whole
 * range: IPv4-mapped ::ffff:0:0/96 and the NAT64 well-known prefix 64:ff9b::/96 (an IPv6-only
 * network reaches public IPv4 receivers through it). Their private embeddings are in
 * EMBEDDED_PRIVATE_IPV4, their public ones in PUBLIC_ADDRESSES.
 */
export interface SpecialRange {
  cidr: string;
  name: string;
  /** The ranges the registries add to on their own, not IANA special-purpose entries. */
  source: 'iana' | 'extra';
}

export const SPECIAL_PURPOSE_IPV4: SpecialRange[] = [
  { cidr: '0.0.0.0/8', name: '"This network"', source: 'iana' },
  { cidr: '0.0.0.0/32', name: '"This host on this network"', source: 'iana' },
  { cidr: '10.0.0.0/8', name: 'Private-Use', source: 'iana' },
  { cidr: '100.64.0.0/10', name: 'Shared Address Space', source: 'iana' },
  { cidr: '127.0.0.0/8', name: 'Loopback', source: 'iana' },
  { cidr: '169.254.0.0/16', name: 'Link Local', source: 'iana' },
  { cidr: '172.16.0.0/12', name: 'Private-Use', source: 'iana' },
  { cidr: '192.0.0.0/24', name: 'IETF Protocol Assignments', source: 'iana' },
  { cidr: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', source: 'iana' },
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy address', source: 'iana' },
  { cidr: '192.0.0.9/32', name: 'Port Control Protocol Anycast', source: 'iana' },
  { cidr: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', source: 'iana' },
  { cidr: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', source: 'iana' },
  { cidr: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', source: 'iana' },
  { cidr: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', source: 'iana' },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', source: 'iana' },
  { cidr: '192.52.193.0/24', name: 'AMT', source: 'iana' },
  { cidr: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', source: 'iana' },
  { cidr: '192.88.99.2/32', name: '6a44-relay anycast address', source: 'iana' },
  { cidr: '192.168.0.0/16', name: 'Private-Use', source: 'iana' },
  { cidr: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', source: 'iana' },
  { cidr: '198.18.0.0/15', name: 'Benchmarking', source: 'iana' },
  { cidr: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', source: 'iana' },
  { cidr: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', source: 'iana' },
  { cidr: '240.0.0.0/4', name: 'Reserved', source: 'iana' },
  { cidr: '255.255.255.255/32', name: 'Limited Broadcast', source: 'iana' },
  { cidr: '224.0.0.0/4', name: 'Multicast (iana-multicast-addresses)', source: 'extra' },
];

export const SPECIAL_PURPOSE_IPV6: SpecialRange[] = [
  { cidr: '::1/128', name: 'Loopback Address', source: 'iana' },
  { cidr: '::/128', name: 'Unspecified Address', source: 'iana' },
  { cidr: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat. (local use)', source: 'iana' },
  { cidr: '100::/64', name: 'Discard-Only Address Block', source: 'iana' },
  { cidr: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', source: 'iana' },
  { cidr: '2001::/23', name: 'IETF Protocol Assignments', source: 'iana' },
  { cidr: '2001::/32', name: 'TEREDO', source: 'iana' },
  { cidr: '2001:1::1/128', name: 'Port Control Protocol Anycast', source: 'iana' },
  { cidr: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', source: 'iana' },
  { cidr: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', source: 'iana' },
  { cidr: '2001:2::/48', name: 'Benchmarking', source: 'iana' },
  { cidr: '2001:3::/32', name: 'AMT', source: 'iana' },
  { cidr: '2001:4:112::/48', name: 'AS112-v6', source: 'iana' },
  { cidr: '2001:10::/28', name: 'Deprecated (previously ORCHID)', source: 'iana' },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', source: 'iana' },
  { cidr: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', source: 'iana' },
  { cidr: '2001:db8::/32', name: 'Documentation', source: 'iana' },
  { cidr: '2002::/16', name: '6to4', source: 'iana' },
  { cidr: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', source: 'iana' },
  { cidr: '3fff::/20', name: 'Documentation', source: 'iana' },
  { cidr: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', source: 'iana' },
  { cidr: 'fc00::/7', name: 'Unique-Local', source: 'iana' },
  { cidr: 'fe80::/10', name: 'Link-Local Unicast', source: 'iana' },
  { cidr: '::/96', name: 'IPv4-compatible (deprecated, RFC 4291)', source: 'extra' },
  { cidr: '::ffff:0:0:0/96', name: 'IPv4-translated (RFC 2765)', source: 'extra' },
  { cidr: 'fec0::/10', name: 'Site-local (deprecated, RFC 3879)', source: 'extra' },
  { cidr: 'ff00::/8', name: 'Multicast', source: 'extra' },
  { cidr: '4000::/3', name: 'Outside global unicast 2000::/3 (iana-ipv6-address-space)', source: 'extra' },
  { cidr: '::/8', name: 'Reserved by IETF (iana-ipv6-address-space)', source: 'extra' },
];

/**
 * A public IPv4 address is harmless inside an embedding that the policy follows (mapped, NAT64
 * 64:ff9b::/96); a private one is refused in every embedding, followed or not.
 */
export const EMBEDDED_PRIVATE_IPV4: Array<[string, string]> = [
  ['IPv4-mapped', '::ffff:127.0.0.1'],
  ['IPv4-mapped (hex)', '::ffff:7f00:1'],
  ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
  ['IPv4-compatible', '::7f00:1'],
  ['IPv4-compatible (dotted)', '::127.0.0.1'],
  ['IPv4-compatible private', '::10.0.0.1'],
  ['NAT64 well-known prefix', '64:ff9b::10.0.0.1'],
  ['NAT64 well-known prefix (hex)', '64:ff9b::a9fe:a9fe'],
  ['NAT64 local-use prefix', '64:ff9b:1::a00:1'],
  ['6to4', '2002:a00:1::1'],
  ['6to4 of loopback', '2002:7f00:1::'],
  ['Teredo (server 10.0.0.1)', '2001:0:a00:1::1'],
  ['IPv4-translated', '::ffff:0:7f00:1'],
];

export const PUBLIC_ADDRESSES: string[] = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '192.0.1.1',
  '192.169.0.1',
  '223.255.255.254',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '64:ff9b::8.8.8.8',
];

/** The first, a middle and the last address of a CIDR range, in ipaddr.js's canonical text form. */
export function sampleAddresses(cidr: string): string[] {
  const [network, prefix] = ipaddr.parseCIDR(cidr);
  const Family = network.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
  const first = Family.networkAddressFromCIDR(cidr).toByteArray();
  const last = Family.broadcastAddressFromCIDR(cidr).toByteArray();
  const middle = [...first];
  if (prefix < first.length * 8) middle[prefix >> 3] |= 0x80 >> (prefix & 7); // the first host bit set
  return [...new Set([first, middle, last].map((bytes) => ipaddr.fromByteArray(bytes).toString()))];
}
