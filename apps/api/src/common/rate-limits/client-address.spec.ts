import { clientAddressKey } from './client-address';

describe('clientAddressKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('treats an IPv4-mapped IPv6 address as the IPv4 address (dotted and hex forms)', () => {
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(clientAddressKey('0:0:0:0:0:ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('reduces an IPv6 address to its /64 network, whatever the notation', () => {
    const key = clientAddressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0DB8:0001:0002:0:0:0:abcd', '2001:db8:1:2:a:b:c:d', '2001:db8:1:2:0:0:0:0']) {
      expect(clientAddressKey(same)).toBe(key);
    }
    expect(clientAddressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('keeps an IPv6 address with an embedded IPv4 tail in its /64', () => {
    expect(clientAddressKey('2001:db8:1:2::192.0.2.1')).toBe('2001:db8:1:2::/64');
  });

  it('gives one key to anything that is not an address (never an error)', () => {
    expect(clientAddressKey(undefined)).toBe('unknown');
    expect(clientAddressKey('')).toBe('unknown');
    expect(clientAddressKey('not an address')).toBe('unknown');
  });
});
