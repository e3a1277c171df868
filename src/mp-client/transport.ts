/**
 * Line-oriented links for the MP client: plain TCP, TLS, and WebSocket (`/apiv2`, one line per
 * text frame, docs/protocol/mp.md §1, §6). A link only moves lines; it knows nothing about the MP.
 */
import net from 'node:net';
import tls from 'node:tls';
import WebSocket from 'ws';
import { MpClientError } from './errors.js';
import { LineSplitter } from '../core/mp/line-splitter.js';

export type MpTransport = 'tcp' | 'tls' | 'ws' | 'wss';

export interface MpCloseInfo {
  /** True when close() or destroy() was called before the connection went down. */
  byClient: boolean;
  /** The socket error that accompanied the close, if any (e.g. ECONNRESET). */
  error?: Error;
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Longest line the client accepts from a server (bytes). */
const MAX_LINE = 1024 * 1024;

export interface LinkHandlers {
  /** One received line, without its terminator. */
  line(line: string): void;
  /** The link is closed (called once, only after a successful open). */
  close(error: Error | undefined): void;
}

export interface Link {
  readonly transport: MpTransport;
  /** Sends one line; the link adds CR LF (TCP/TLS) or sends it as one text frame (WebSocket). */
  sendLine(line: string): void;
  /** Sends arbitrary bytes (TCP/TLS only; on a WebSocket: one text frame holding them). */
  write(data: string | Uint8Array): void;
  readonly isOpen: boolean;
  /** Graceful close (FIN / close frame); forced after `graceMs` if the peer does not finish it. */
  end(graceMs?: number): void;
  /** Immediate close. */
  destroy(): void;
}

export interface LinkOptions {
  host: string;
  port: number;
  transport: MpTransport;
  /** TLS options for 'tls' and 'wss' (e.g. `{ rejectUnauthorized: false }` or `{ ca }`). */
  tls?: tls.ConnectionOptions;
  /** WebSocket path (default `/apiv2`). */
  wsPath?: string;
  /** The local address to connect from ('tcp' and 'tls'), e.g. one of 127.0.0.0/8. */
  localAddress?: string;
}

/** Opens a link; resolves once connected (TLS: after the handshake; WebSocket: after the upgrade). */
export function openLink(opts: LinkOptions, handlers: LinkHandlers): Promise<Link> {
  return opts.transport === 'ws' || opts.transport === 'wss'
    ? openWebSocketLink(opts, handlers)
    : openSocketLink(opts, handlers);
}

function connectFailed(opts: LinkOptions, cause: unknown): MpClientError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new MpClientError('MP_CONNECT_FAILED', `${opts.transport}://${opts.host}:${opts.port}: ${detail}`, { cause });
}

function openSocketLink(opts: LinkOptions, handlers: LinkHandlers): Promise<Link> {
  return new Promise<Link>((resolve, reject) => {
    const socket =
      opts.transport === 'tls'
        ? tls.connect({ ...opts.tls, host: opts.host, port: opts.port, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) })
        : net.connect({ host: opts.host, port: opts.port, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
    const splitter = new LineSplitter(MAX_LINE);
    let open = false;
    let lastError: Error | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    socket.setNoDelay(true);

    const link: Link = {
      transport: opts.transport,
      get isOpen() {
        return open && !socket.destroyed && socket.writable;
      },
      sendLine(line) {
        socket.write(line + '\r\n');
      },
      write(data) {
        socket.write(data);
      },
      end(graceMs = 1000) {
        if (socket.destroyed) return;
        socket.end();
        graceTimer ??= setTimeout(() => socket.destroy(), graceMs);
        graceTimer.unref();
      },
      destroy() {
        socket.destroy();
      },
    };

    socket.once(opts.transport === 'tls' ? 'secureConnect' : 'connect', () => {
      open = true;
      resolve(link);
    });
    socket.on('data', (chunk: Buffer) => {
      if (!splitter.push(chunk, (line) => handlers.line(line))) {
        lastError = new Error(`line from the server longer than ${MAX_LINE} bytes`);
        socket.destroy();
      }
    });
    socket.on('end', () => {
      const rest = splitter.flush();
      if (rest !== null) handlers.line(rest);
    });
    socket.on('error', (err) => {
      lastError = err;
      if (!open) reject(connectFailed(opts, err));
    });
    socket.on('close', () => {
      if (graceTimer) clearTimeout(graceTimer);
      if (!open) {
        reject(connectFailed(opts, lastError ?? new Error('closed while connecting')));
        return;
      }
      open = false;
      handlers.close(lastError);
    });
  });
}

function openWebSocketLink(opts: LinkOptions, handlers: LinkHandlers): Promise<Link> {
  return new Promise<Link>((resolve, reject) => {
    const scheme = opts.transport === 'wss' ? 'wss' : 'ws';
    const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
    const url = `${scheme}://${host}:${opts.port}${opts.wsPath ?? '/apiv2'}`;
    const ws = new WebSocket(url, { perMessageDeflate: false, ...(opts.tls as WebSocket.ClientOptions | undefined) });
    let open = false;
    let lastError: Error | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const link: Link = {
      transport: opts.transport,
      get isOpen() {
        return open && ws.readyState === WebSocket.OPEN;
      },
      sendLine(line) {
        ws.send(line);
      },
      write(data) {
        ws.send(typeof data === 'string' ? data : Buffer.from(data), { binary: false });
      },
      end(graceMs = 1000) {
        if (ws.readyState === WebSocket.CLOSED) return;
        ws.close(1000);
        graceTimer ??= setTimeout(() => ws.terminate(), graceMs);
        graceTimer.unref();
      },
      destroy() {
        ws.terminate();
      },
    };

    ws.on('open', () => {
      open = true;
      resolve(link);
    });
    ws.on('message', (data: WebSocket.RawData) => {
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      // One line per frame; tolerate a trailing CR LF / LF (docs/protocol/mp.md §6).
      handlers.line(text.endsWith('\n') ? stripCr(text.slice(0, -1)) : text);
    });
    ws.on('error', (err) => {
      lastError = err;
      if (!open) reject(connectFailed(opts, err));
    });
    ws.on('close', () => {
      if (graceTimer) clearTimeout(graceTimer);
      if (!open) {
        reject(connectFailed(opts, lastError ?? new Error('closed while connecting')));
        return;
      }
      open = false;
      handlers.close(lastError);
    });
  });
}
