/**
 * The cap on concurrent connections per source address, shared by every listener of a server
 * (MP over TCP and TLS, HTTP and HTTPS with the WebSocket upgrades, the embedded MQTT broker over
 * TCP, TLS and WebSocket): one address holds at most `max` sockets, whichever ports it uses, so
 * that one client cannot use up the process's file descriptors and lock honest clients out.
 *
 * A connection over the cap is destroyed as soon as it is accepted, before any byte of it is read:
 * no TLS handshake, no HTTP parsing, no MP welcome, no MQTT client. That is logged once per
 * address per minute, not per connection. IPv4 addresses (also as `::ffff:a.b.c.d`) count one by
 * one; IPv6 addresses by their /64 prefix, since one host or one customer line normally has a
 * whole /64 to pick addresses from.
 */
import type { Server, Socket } from 'node:net';
import { addressKey } from '../core/address-key.js';
import type { Logger } from 'pino';
import { onCapRelease } from '../util/cap-release.js';

/**
 * Generous for a carrier-grade NAT that puts many phones behind one address, and a quarter of the
 * common default descriptor limit (1024), so that one address alone cannot use the descriptors up
 * even where that limit could not be raised. Cars that have logged in do not count (the MP
 * adapter releases them, src/util/cap-release.ts): thousands of modules behind one NAT address
 * are bounded by their vehicles, one connection each.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;

const LOG_INTERVAL_MS = 60_000;

type Emit = (event: string | symbol, ...args: unknown[]) => boolean;

export class ConnectionCap {
  /** Open connections per address key. */
  private readonly open = new Map<string, number>();
  private readonly guarded = new WeakSet<Server>();
  /** Addresses whose refusal was logged in the current interval. */
  private logged = new Set<string>();
  private intervalStart = Number.NEGATIVE_INFINITY;

  /**
   * @param max connections per address at once; 0 = no cap
   * @param now epoch milliseconds (for the log interval)
   */
  constructor(
    readonly max: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly logIntervalMs = LOG_INTERVAL_MS,
    /** Addresses that are not capped (the load balancers and proxies of `--trust-proxy`). */
    private readonly exempt: (address: string) => boolean = () => false,
  ) {}

  /** Open connections counted for this address (IPv6: for its /64). */
  count(address: string): number {
    return this.open.get(addressKey(address)) ?? 0;
  }

  /** Addresses with open connections. */
  get addresses(): number {
    return this.open.size;
  }

  /**
   * Counts `socket` for its address until it closes or logs in as a car (`releaseFromCap`), or refuses it (false, not counted) when the
   * address holds `max` connections already. The caller destroys a refused socket.
   */
  admit(socket: Socket): boolean {
    if (this.max <= 0) return true;
    if (socket.remoteAddress !== undefined && this.exempt(socket.remoteAddress)) return true;
    const key = addressKey(socket.remoteAddress);
    const n = this.open.get(key) ?? 0;
    if (n >= this.max) {
      this.refused(key);
      return false;
    }
    this.open.set(key, n + 1);
    let counted = true;
    const uncount = (): void => {
      if (!counted) return;
      counted = false;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
    socket.on('close', uncount); // uncount runs once; `on` spares a once-wrapper per socket
    // a car that logged in stops counting (src/util/cap-release.ts)
    onCapRelease(socket, uncount);
    return true;
  }

  /**
   * Applies the cap to every connection `server` accepts (net, tls, http or https): a refused
   * socket is destroyed before the server's own `connection` listeners see it, so it costs no TLS
   * handshake, parser or protocol state.
   */
  guard(server: Server): void {
    if (this.max <= 0 || this.guarded.has(server)) return;
    this.guarded.add(server);
    const emit = server.emit.bind(server) as Emit;
    (server as unknown as { emit: Emit }).emit = (event, ...args) => {
      if (event === 'connection') {
        const socket = args[0] as Socket;
        if (!this.admit(socket)) {
          socket.destroy();
          return false;
        }
      }
      return emit(event, ...args);
    };
  }

  private refused(key: string): void {
    const now = this.now();
    if (now - this.intervalStart >= this.logIntervalMs) {
      this.intervalStart = now;
      this.logged = new Set();
    }
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.log.info(
      { address: key, max: this.max },
      'connection limit of an address reached: refusing its new connections (--max-connections-per-address); said once a minute per address',
    );
  }
}
