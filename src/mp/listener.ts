/**
 * The MP listeners: plain TCP (6867) and, with a certificate, TLS (6870). Both accept the line
 * protocol and the WebSocket upgrade. One sweep timer checks every connection for inactivity, a
 * slice of them at a time (src/core/sliced-sweep.ts).
 */
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';
import { SlicedSweep, slicesFor } from '../core/sliced-sweep.js';
import { listen } from '../util/listen.js';
import type { MpConnection } from './connection.js';
import type { MpContext } from './context.js';
import { acceptSocket, type SocketLinkOptions } from './socket-link.js';
import { createWebSocketGateway } from './websocket-link.js';

export interface MpListenerOptions {
  host?: string;
  port: number;
  /** null: no TLS listener. */
  tlsPort: number | null;
  tls?: TlsOptions;
  /** How often connections are checked for inactivity (ms). */
  sweepIntervalMs: number;
}

export interface MpListener {
  readonly port: number;
  readonly tlsPort: number | null;
  readonly connections: ReadonlySet<MpConnection>;
  /** Stops accepting, closes every connection, resolves when the sockets are gone. */
  close(): Promise<void>;
}

export async function startMpListener(ctx: MpContext, opts: MpListenerOptions): Promise<MpListener> {
  const connections = new Set<MpConnection>();
  const sockets = new Set<Socket>();
  const register = (c: MpConnection): void => void connections.add(c);
  const unregister = (c: MpConnection): void => void connections.delete(c);
  const gateway = createWebSocketGateway(ctx, register, unregister);

  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket)); // `on`: a once-wrapper per socket is memory a fleet holds
  };
  // one options object per listener, not one (and a closure) per socket: a fleet holds them all
  const plain: SocketLinkOptions = { tls: false, onHttp: (s) => gateway.accept(s, false) };
  const secure: SocketLinkOptions = { tls: true, onHttp: (s) => gateway.accept(s, true) };
  const tcp = createTcpServer({ pauseOnConnect: false }, (socket) => {
    track(socket);
    acceptSocket(ctx, socket, plain, register, unregister);
  });
  tcp.on('error', (err) => ctx.log.error({ err }, 'MP listener error'));

  let tls: Server | null = null;
  if (opts.tlsPort !== null && opts.tls) {
    const server = createTlsServer({ ...opts.tls, handshakeTimeout: ctx.timeouts.welcomeMs }, (socket) => {
      track(socket);
      acceptSocket(ctx, socket, secure, register, unregister);
    });
    server.on('tlsClientError', (err, socket) => {
      if (ctx.log.isLevelEnabled('debug')) ctx.log.debug({ err: err.message }, 'TLS handshake failed');
      socket.destroy();
    });
    server.on('error', (err) => ctx.log.error({ err }, 'MP TLS listener error'));
    tls = server;
  }

  const port = await listen(tcp, opts.port, opts.host);
  let tlsPort: number | null = null;
  try {
    if (tls) tlsPort = await listen(tls, opts.tlsPort!, opts.host);
  } catch (err) {
    tcp.close();
    throw err;
  }

  // each connection once a sweep interval, a tenth of them every tenth of it (19,000 at once held
  // the event loop for milliseconds)
  const slices = slicesFor(opts.sweepIntervalMs, 10);
  const sliced = new SlicedSweep(() => connections.values(), () => connections.size, slices);
  const sweep = setInterval(() => {
    const now = Date.now();
    sliced.step((c) => c.tick(now));
  }, opts.sweepIntervalMs / slices);
  sweep.unref();

  return {
    port,
    tlsPort,
    connections,
    async close() {
      clearInterval(sweep);
      const closed = Promise.all([
        new Promise<void>((r) => tcp.close(() => r())),
        tls ? new Promise<void>((r) => tls!.close(() => r())) : Promise.resolve(),
      ]);
      for (const c of connections) c.close('server shutting down');
      gateway.close();
      const deadline = setTimeout(() => {
        for (const s of sockets) s.destroy();
      }, 1000);
      deadline.unref();
      await closed;
      clearTimeout(deadline);
    },
  };
}
