/** Starts a listener of any adapter (MP, HTTP, MQTT): resolves with the port taken (for port 0). */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:net';
import { VtsError } from '../errors.js';

/** Set up on a server before it listens (the per-address connection cap). */
export type ListenerGuard = (server: Server) => void;

const guards = new AsyncLocalStorage<ListenerGuard>();
/** Starts running inside `withListenerGuard`; at 0 the storage is off (see there). */
let starting = 0;

/**
 * Runs `start` so that every listener it starts through `listen()`, also in code that knows
 * nothing of it (the embedded MQTT broker), gets `guard` before it accepts a connection: the
 * server's composition root applies its connection cap to all of its listeners this way.
 *
 * The guard travels with `start`'s asynchronous work through an AsyncLocalStorage. While one is
 * in use, Node 20 runs async hooks on every promise and callback of the process, the request path
 * of the HTTP API too; so the storage is turned off again once no start is running (every
 * listener of a server is started while its start runs).
 */
export async function withListenerGuard<T>(guard: ListenerGuard, start: () => Promise<T>): Promise<T> {
  starting++;
  try {
    return await guards.run(guard, start);
  } finally {
    if (--starting === 0) guards.disable();
  }
}

/**
 * Listens on `port`. An error of the attempt (port in use, no permission, no such address) rejects
 * the promise and reaches no other `error` listener of the server: those are for errors of a
 * running listener (they log one with its stack), while this one is the caller's to report.
 */
export function listen(server: Server, port: number, host?: string, backlog = 4096): Promise<number> {
  guards.getStore()?.(server);
  const running = server.listeners('error') as ((err: Error) => void)[];
  server.removeAllListeners('error');
  const restore = (): void => {
    for (const l of running) server.on('error', l);
  };
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      restore();
      reject(err);
    };
    server.once('error', onError);
    server.listen({ port, host, backlog }, () => {
      server.off('error', onError);
      restore();
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** A listener as the user knows it: what it is, the option that sets its port, and the port. */
export interface ListenerSpec {
  /** `MP`, `HTTP API`, `MQTT broker`… */
  name: string;
  /** `--http-port` */
  option: string;
  port: number;
}

interface ListenErrno extends NodeJS.ErrnoException {
  port?: number;
  address?: string;
  hostname?: string;
}

/**
 * One line for a listener that could not start: the port, the listener and the option that
 * changes it. `candidates`: the listeners the failed step was starting (the error's port tells
 * which); `all`: every listener of the server, to tell a port given to two options; `bind`: the
 * `--bind` address, if any.
 */
export function describeListenError(err: unknown, candidates: readonly ListenerSpec[], all: readonly ListenerSpec[], bind?: string): VtsError {
  const e = err as ListenErrno;
  const l = candidates.find((c) => c.port === e.port && c.port !== 0) ?? candidates[0] ?? { name: 'listener', option: '--bind', port: e.port ?? 0 };
  const port = e.port ?? l.port;
  const say = (code: ConstructorParameters<typeof VtsError>[0], text: string): VtsError => new VtsError(code, text, { whole: true, cause: err });
  const where = bind ?? e.address ?? e.hostname ?? 'all interfaces';
  switch (e.code) {
    case 'EADDRINUSE': {
      const twice = all.filter((o) => o.port === port && port !== 0);
      if (twice.length > 1) {
        return say('VTS_ERR_PORT_IN_USE', `port ${port} is given to both ${twice.map((o) => o.option).join(' and ')}: choose another port for one of them`);
      }
      return say('VTS_ERR_PORT_IN_USE', `port ${port} (${l.name}) is in use by another program: stop it or choose another port with ${l.option}`);
    }
    case 'EACCES':
    case 'EPERM':
      return say(
        'VTS_ERR_PORT_DENIED',
        port < 1024
          ? `no permission to listen on port ${port} (${l.name}): ports below 1024 need privileges; choose a port from 1024 up with ${l.option}`
          : `no permission to listen on port ${port} (${l.name}): choose another port with ${l.option}`,
      );
    case 'EADDRNOTAVAIL':
      return say('VTS_ERR_BIND_ADDRESS', `cannot listen on ${where}: it is not an address of this machine: give one of its addresses with --bind, or leave --bind out to listen on all of them`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return say('VTS_ERR_BIND_ADDRESS', `cannot listen on ${where}: no such address or host name: give one of this machine's addresses with --bind`);
    default: {
      const message = err instanceof Error ? err.message : String(err);
      if (e.syscall !== 'listen') return say('VTS_ERR_LISTEN', `the ${l.name} listener could not start: ${message}`);
      return say('VTS_ERR_LISTEN', `port ${port} (${l.name}) could not start: ${message}: check ${l.option}${bind === undefined ? '' : ' and --bind'}`);
    }
  }
}
