/**
 * A TCP proxy of the tests' own in front of a service (PostgreSQL), to make its connections go
 * silent without closing them: a "black hole", as a partition that drops packets, or an address
 * that moved to another server after a failover, looks to the client.
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
  let accepted = 0;
  const server: Server = createServer((client) => {
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
