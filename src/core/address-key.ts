/** Client addresses as the limits count them (pure). */
import { isIPv4, isIPv6 } from 'node:net';

/** A peer's address as vts shows and compares it: IPv4-mapped IPv6 as IPv4, `unknown` when absent. */
export function normaliseAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** Whether a (normalised) address is this machine's loopback. */
export function isLoopback(address: string): boolean {
  return address === '::1' || (isIPv4(address) && address.startsWith('127.'));
}

/** The key an address counts under: IPv4 as it is, IPv6 by its /64 prefix (`2001:db8:0:1::/64`). */
export function addressKey(address: string | undefined): string {
  address = normaliseAddress(address);
  const bare = address.split('%', 1)[0]!; // a zone id (`fe80::1%eth0`)
  if (!isIPv6(bare)) return address;
  const [head = '', tail] = bare.split('::', 2);
  const left = head === '' ? [] : head.split(':');
  // an embedded IPv4 tail (`64:ff9b::192.0.2.1`) takes two groups, but only the first four matter
  const right = tail === undefined || tail === '' ? [] : tail.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':') + '::/64';
}
