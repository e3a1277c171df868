/**
 * A TCP or TLS socket as an MP line transport. The first bytes decide what the connection is:
 * `GET ` starts an HTTP request (the WebSocket upgrade of docs/protocol/mp.md §6), anything else is
 * the line protocol.
 */
import type { Socket } from 'node:net';
import { MpConnection, type LineSink } from './connection.js';
import type { MpContext } from './context.js';
import { LineSplitter } from '../core/mp/line-splitter.js';
import { normaliseAddress } from '../core/address-key.js';
import { releaseFromCap } from '../util/cap-release.js';

const KEEPALIVE_MS = 240_000; // REF: TCP_KEEPIDLE 240 s

export interface SocketLinkOptions {
  tls: boolean;
  /** Receives a socket whose first bytes are an HTTP request (already read bytes put back). */
  onHttp: (socket: Socket) => void;
}

class SocketSink implements LineSink {
  readonly remoteAddress: string;
  readonly transport: 'tcp' | 'tls';

  constructor(
    private readonly socket: Socket,
    tls: boolean,
  ) {
    this.remoteAddress = normaliseAddress(socket.remoteAddress);
    this.transport = tls ? 'tls' : 'tcp';
  }

  writeLine(line: string): void {
    if (!this.socket.destroyed) this.socket.write(line + '\r\n');
  }

  bufferedBytes(): number {
    return this.socket.writableLength;
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    if (!this.socket.destroyed) this.socket.resume();
  }

  end(): void {
    this.socket.end();
    // a peer that never reads would keep a half-closed socket: give it a moment, then drop it
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }

  destroy(): void {
    this.socket.destroy();
  }

  releaseFromCap(): void {
    releaseFromCap(this.socket);
  }
}


const EMPTY = Buffer.alloc(0);

/** Takes over an accepted socket; `register` / `unregister` keep the listener's connection set. */
export function acceptSocket(
  ctx: MpContext,
  socket: Socket,
  opts: SocketLinkOptions,
  register: (c: MpConnection) => void,
  unregister: (c: MpConnection) => void,
): void {
  socket.setNoDelay(true);
  socket.setKeepAlive(true, KEEPALIVE_MS);
  const splitter = new LineSplitter(ctx.limits.maxLineBytes);
  const conn = new MpConnection(ctx, new SocketSink(socket, opts.tls));
  register(conn);
  let sniffed = false;
  let head: Buffer = EMPTY;

  const onData = (chunk: Buffer): void => {
    if (!sniffed) {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      if (head.length < 4 && head.indexOf(10) < 0) return;
      sniffed = true;
      chunk = head;
      // the first read's buffer is not kept for the connection's life (a fleet holds thousands)
      head = EMPTY;
      if (chunk.subarray(0, 4).toString('latin1') === 'GET ') {
        // hand the socket, with the bytes read so far, to the HTTP/WebSocket side
        socket.off('data', onData);
        socket.off('close', onClose);
        socket.pause();
        socket.unshift(chunk);
        unregister(conn);
        conn.abandon();
        opts.onHttp(socket);
        return;
      }
    }
    const ok = splitter.push(chunk, (line, bytes) => {
      conn.receiveLine(line, bytes);
      return conn.state !== 'closed';
    });
    if (!ok) {
      ctx.log.info({ conn: conn.id, address: normaliseAddress(socket.remoteAddress) }, 'line too long: closing');
      conn.terminate();
    }
  };
  const onClose = (): void => {
    conn.transportClosed();
    unregister(conn);
  };
  socket.on('data', onData);
  socket.on('close', onClose);
  socket.on('error', (err) => {
    if (ctx.log.isLevelEnabled('debug')) ctx.log.debug({ conn: conn.id, err: err.message }, 'socket error');
  });
}
