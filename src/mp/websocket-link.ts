/**
 * The WebSocket transport of the MP (docs/protocol/mp.md §6): `GET /apiv2` (or `/apiv2/`) on the MP
 * ports upgrades to RFC 6455; each text or binary frame carries one line, each line the server
 * sends is one text frame without CR LF. Ping, pong and close frames are handled by `ws`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { MpConnection, type LineSink } from './connection.js';
import type { MpContext } from './context.js';
import { normaliseAddress } from '../core/address-key.js';
import { releaseFromCap } from '../util/cap-release.js';

class WebSocketSink implements LineSink {
  constructor(
    private readonly ws: WebSocket,
    readonly remoteAddress: string,
    readonly transport: 'ws' | 'wss',
    /** The socket under the WebSocket (the one the per-address cap counts). */
    private readonly socket: Socket,
  ) {}

  releaseFromCap(): void {
    releaseFromCap(this.socket);
  }

  writeLine(line: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(line);
  }

  bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  pause(): void {
    this.ws.pause();
  }

  resume(): void {
    this.ws.resume();
  }

  end(): void {
    this.ws.close(1000);
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }

  destroy(): void {
    this.ws.terminate();
  }
}

export interface WebSocketGateway {
  /** Takes a socket whose first bytes (put back) are an HTTP request. */
  accept(socket: Socket, tls: boolean): void;
  close(): void;
}

export function createWebSocketGateway(
  ctx: MpContext,
  register: (c: MpConnection) => void,
  unregister: (c: MpConnection) => void,
): WebSocketGateway {
  const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.limits.maxLineBytes + 2 });
  const http: Server = createServer((req, res) => {
    res.writeHead(req.url === '/apiv2' || req.url === '/apiv2/' ? 426 : 404, { 'Content-Type': 'text/plain' });
    res.end(req.url === '/apiv2' || req.url === '/apiv2/' ? 'Upgrade Required\n' : 'Not Found\n');
  });
  // this server never listens (it gets its sockets from the MP listeners), so node enforces none
  // of its timeouts: each socket gets the login timeout to finish its upgrade (see accept)
  http.headersTimeout = ctx.timeouts.welcomeMs;
  http.requestTimeout = ctx.timeouts.welcomeMs;
  const tlsSockets = new WeakSet<Socket>();
  const upgradeTimers = new WeakMap<Socket, NodeJS.Timeout>();

  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    clearTimeout(upgradeTimers.get(socket)); // the MpConnection's login timer takes over
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/apiv2' && path !== '/apiv2/') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const transport = tlsSockets.has(socket) ? 'wss' : 'ws';
      const conn = new MpConnection(ctx, new WebSocketSink(ws, normaliseAddress(socket.remoteAddress), transport, socket));
      register(conn);
      ws.on('message', (data) => {
        const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        let line = raw.toString('utf8');
        if (line.endsWith('\n')) line = line.slice(0, -1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        conn.receiveLine(line, raw.length + 2);
      });
      ws.on('close', () => {
        conn.transportClosed();
        unregister(conn);
      });
      ws.on('error', (err) => {
        if (ctx.log.isLevelEnabled('debug')) ctx.log.debug({ conn: conn.id, err: err.message }, 'websocket error');
      });
    });
  });
  http.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  return {
    accept(socket, tls) {
      if (tls) tlsSockets.add(socket);
      const timer = setTimeout(() => {
        if (ctx.log.isLevelEnabled('debug')) ctx.log.debug({ address: normaliseAddress(socket.remoteAddress) }, 'no WebSocket upgrade in time: closing');
        socket.destroy();
      }, ctx.timeouts.welcomeMs);
      timer.unref();
      upgradeTimers.set(socket, timer);
      socket.once('close', () => clearTimeout(timer));
      http.emit('connection', socket);
      socket.resume();
    },
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
