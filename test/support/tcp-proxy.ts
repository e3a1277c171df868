/**
 * A TCP proxy of the tests' own in front of a service (PostgreSQL), to make it go away in the two
 * ways a client meets: its connections go silent without closing (`blackHole`: a partition that
 * drops packets, or an address that moved to another server after a failover), or they are cut
 * and new ones refused (`cut`: the server is down).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /**
   * The connections open now stop forwarding in both directions (their sockets stay open, their
   * data is dropped); later connections are forwarded as usual unless `all` (every connection,
   * new ones too, until `resume`).
   */
  blackHole(all?: boolean): void;
  /** New connections are forwarded again (the black-holed ones stay silent). */
  resume(): void;
  /** Every connection is closed, and new ones are closed at once, until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
  silent: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let holeAll = false;
  let cut = false;
  let accepted = 0;
  const server: Server = createServer((client) => {
    if (cut) return client.destroy();
    accepted++;
    const upstream = createConnection(target);
    const pair: Pair = { client, server: upstream, silent: holeAll };
    pairs.add(pair);
    client.on('data', (b) => void (pair.silent || upstream.write(b)));
    upstream.on('data', (b) => void (pair.silent || client.write(b)));
    const done = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // a silent pair passes on nothing, not even a close (the peer would notice)
    client.on('close', () => (pair.silent ? pairs.delete(pair) && upstream.destroy() : done()));
    upstream.on('close', () => (pair.silent ? undefined : done()));
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get accepted() {
      return accepted;
    },
    blackHole(all = false) {
      for (const p of pairs) p.silent = true;
      holeAll = all;
    },
    resume() {
      holeAll = false;
    },
    cut() {
      cut = true;
      for (const p of pairs) {
        p.client.destroy();
        p.server.destroy();
      }
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const p of pairs) {
          p.client.destroy();
          p.server.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

/** A proxy in front of the PostgreSQL of `url`, and `url` through it. */
export async function proxyPostgres(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const through = new URL(url);
  const proxy = await startTcpProxy({ host: through.hostname, port: Number(through.port || 5432) });
  through.hostname = '127.0.0.1';
  through.port = String(proxy.port);
  return { proxy, url: through.toString() };
}
