import { describe, expect, it } from 'vitest';
import { ipBudgetKey } from './ip-key.ts';

describe('ipBudgetKey', () => {
  it.each([
    ['an IPv4 address is itself', '203.0.113.9', '203.0.113.9'],
    ['an IPv4-mapped IPv6 address is the IPv4 address', '::ffff:203.0.113.9', '203.0.113.9'],
    ['an IPv6 address stands for its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['however it is written', '2001:0DB8:0001:0002::ffff', '2001:db8:1:2::/64'],
    ['loopback', '::1', '0:0:0:0::/64'],
    ['not an address', 'unknown', 'unknown'],
  ])('%s', (_name, ip, key) => {
    expect(ipBudgetKey(ip)).toBe(key);
  });

  it('gives every address of one /64 the same key, and the next /64 another', () => {
    expect(ipBudgetKey('2001:db8:1:2::1')).toBe(ipBudgetKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(ipBudgetKey('2001:db8:1:3::1')).not.toBe(ipBudgetKey('2001:db8:1:2::1'));
  });
});
