/**
 * `--trust-proxy`: the HTTP proxies and load balancers in front of vts, by address or network
 * (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`). Their `X-Forwarded-For` names the client (for the rate
 * limit, the login throttle and the logs), and their own connections are not capped per address.
 */
import { BlockList, isIP } from 'node:net';

/** Checks a comma list of addresses and networks. */
export function parseTrustedProxies(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) {
    const [address, bits, extra] = item.split('/');
    const family = isIP(address ?? '');
    const max = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !bitsOk || extra !== undefined) throw new Error(`not an IP address or network (a.b.c.d[/n], IPv6[/n]): ${item}`);
  }
  return items;
}

/** Whether an address (as a socket gives it: IPv4 may come IPv4-mapped) is one of the trusted proxies. */
export function trustedProxyCheck(items: readonly string[]): (address: string) => boolean {
  if (items.length === 0) return () => false;
  const list = new BlockList();
  for (const item of items) {
    const [address, bits] = item.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const type = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
    return isIP(plain) !== 0 && list.check(plain, type);
  };
}
