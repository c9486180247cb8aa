import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (zone removed, `::` and an IPv4 tail expanded). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0];
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number);
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const parse = (part: string | undefined): number[] => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(rest);
  const zeros = rest === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
}

/**
 * The client a per-address limit counts: an IPv4 address as it is (an IPv4-mapped IPv6 address,
 * as a dual-stack socket reports IPv4 clients, counts as that IPv4 address), and an IPv6 address
 * as its /64 network. One subscriber or host usually holds a whole /64 and can pick any of its
 * 2^64 addresses, so a per-address counter would be no limit at all.
 */
export function clientAddressKey(ip: string | undefined): string {
  const address = (ip ?? '').trim();
  const version = isIP(address.split('%')[0]);
  if (version === 4) return address;
  if (version !== 6) return 'unknown';
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
