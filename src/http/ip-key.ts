import ipaddr from 'ipaddr.js';

/**
 * The key of a client address in the per-IP budgets. An IPv4 address is itself (an IPv4-mapped
 * IPv6 address, as a dual-stack socket reports it, too). An IPv6 address stands for its /64: a
 * single host is commonly given a whole /64 and can send from any of its 2^64 addresses, so a
 * budget per address would be no budget at all (RFC 6177; rate limiters key IPv6 by prefix).
 * Anything that is not an address (no socket address: 'unknown') is kept as it is.
 */
export function ipBudgetKey(ip: string): string {
  // IPv4 as Node reports it (the common case, on every token request): nothing to parse.
  if (!ip.includes(':')) return ip;
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
