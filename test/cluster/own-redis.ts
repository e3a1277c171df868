/** A Redis of a test's own, on a free port, that the test may kill and start again (nothing kept on disk). */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { eventually } from '../mp/helpers.js';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** A Redis of this test's own (nothing kept on disk). */
export async function redisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await eventually(
    () =>
      new Promise<true | undefined>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(true)); // the port is taken: Redis listens
        s.listen(port, '127.0.0.1', () => s.close(() => resolve(undefined)));
      }),
    `redis-server on ${port}`,
  );
  return child;
}

export interface FreezingProxy {
  readonly port: number;
  /** Stops forwarding both ways without closing anything (what is sent meanwhile waits). */
  freeze(): void;
  /** Forwards again, what waited first. */
  thaw(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy of the test's own in front of a Redis: frozen, it forwards nothing and closes
 * nothing, as a Redis that hangs or a network path that drops everything would look to a client.
 */
export async function freezingProxy(targetPort: number): Promise<FreezingProxy> {
  let frozen = false;
  const waiting: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (chunk: Buffer) => {
      if (frozen) waiting.push(() => to.write(chunk));
      else to.write(chunk);
    });
    from.on('close', () => to.destroy());
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => (frozen = true),
    thaw: () => {
      frozen = false;
      for (const send of waiting.splice(0)) send();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
