/**
 * Where a user's own targets (webhooks, ntfy topics) may be sent: anywhere public, and into the
 * local and private ranges (loopback, link-local, RFC 1918, unique local, CGNAT, …) only where the
 * operator allows it (`--webhook-allow`). Otherwise any user could make the server send requests
 * into its own network and read from the outcomes what answers there.
 *
 * The address is checked where the connection is made (the lookup the socket uses, and an IP
 * literal before it), not when the URL is added: a name that resolves to a public address when
 * checked and to a private one when connected (DNS rebinding) is refused all the same.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { VtsError } from '../../errors.js';

/** The ranges refused unless allowed: [network, prefix]. */
const LOCAL_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const LOCAL_V6: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];

/** The word of `--webhook-allow` for every local and private range. */
export const ALLOW_PRIVATE = 'private';

export interface AddressPolicy {
  /** Whether a connection to `ip` (an IPv4 or IPv6 address) may be made. */
  allows(ip: string): boolean;
}

function add(list: BlockList, network: string, prefix: number): void {
  list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
}

/** An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`) as IPv4; anything else as it is. */
function unmapped(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

/**
 * Parses `--webhook-allow`: comma-separated addresses and networks (`192.168.1.10`,
 * `192.168.1.0/24`, `fd00::/8`) or `private` (every local and private range).
 * @throws VtsError VTS_ERR_CONFIG for anything else
 */
export function parseAllowList(value: string): string[] {
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const item of items) {
    if (item === ALLOW_PRIVATE) continue;
    const [ip = '', prefix] = item.split('/');
    const family = isIP(ip);
    const most = family === 6 ? 128 : 32;
    if (family === 0 || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= most))) {
      throw new VtsError('VTS_ERR_CONFIG', `${item} is not an address or network: give e.g. 192.168.1.0/24,fd00::/8 or ${ALLOW_PRIVATE}`);
    }
  }
  return items;
}

/** The policy of an allow list (as parseAllowList returns it; empty: every local and private range refused). */
export function addressPolicy(allow: readonly string[] = []): AddressPolicy {
  if (allow.includes(ALLOW_PRIVATE)) return { allows: () => true };
  const local = new BlockList();
  for (const [n, p] of [...LOCAL_V4, ...LOCAL_V6]) add(local, n, p);
  const allowed = new BlockList();
  for (const item of allow) {
    const [ip = '', prefix] = item.split('/');
    add(allowed, ip, prefix === undefined ? (isIP(ip) === 6 ? 128 : 32) : Number(prefix));
  }
  return {
    allows(address) {
      const ip = unmapped(address);
      const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
      return !local.check(ip, type) || allowed.check(ip, type);
    },
  };
}

/** The error of a connection the policy refused (its `code` is what the providers look for). */
export const REFUSED_CODE = 'VTS_ADDRESS_NOT_ALLOWED';
const refused = (host: string): Error => Object.assign(new Error(`${host}: a local or private address`), { code: REFUSED_CODE });

/** Whether `err` (of a request, or its cause) is the policy's refusal. */
export function isRefusal(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === REFUSED_CODE || e?.cause?.code === REFUSED_CODE;
}

/** The `lookup` of the sockets to user targets: dns.lookup, keeping only the addresses the policy allows. */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const ok = addresses.filter((a) => policy.allows(a.address));
      if (ok.length === 0) return callback(refused(hostname), []);
      if ((options as LookupAllOptions).all) return callback(null, ok);
      callback(null, ok[0]!.address, ok[0]!.family);
    });
  }) as LookupFunction;
}

/** Whether a URL's host (an IP literal is connected to without a lookup) is allowed: names are checked at lookup. */
export function literalAllowed(policy: AddressPolicy, hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 || policy.allows(host);
}
