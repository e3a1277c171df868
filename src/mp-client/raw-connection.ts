/**
 * A bare line-oriented connection for tests that speak the wire directly: send any line or any
 * bytes (a malformed welcome, a line before login, a half line…) and watch what comes back and
 * whether the server closes. Received lines are split on LF with one trailing CR stripped and
 * buffered without limit until consumed.
 */
import type tls from 'node:tls';
import { ReceiveQueue } from './receive-queue.js';
import { openLink, type Link, type MpCloseInfo, type MpTransport } from './transport.js';

export interface RawConnectOptions {
  /** 'tcp' (default), 'tls', 'ws' or 'wss' (WebSocket: one frame per sendLine). */
  transport?: MpTransport;
  tls?: tls.ConnectionOptions;
  wsPath?: string;
  /** Default timeout of next() and waitFor() (default 5000 ms). */
  defaultTimeoutMs?: number;
}

export class RawConnection {
  /** Resolves (never rejects) once the connection is closed, by either side. */
  readonly closed: Promise<MpCloseInfo>;
  private readonly queue = new ReceiveQueue<string>((l) => JSON.stringify(l));
  private link!: Link;
  private closeRequested = false;
  private down = false;
  private resolveClosed!: (info: MpCloseInfo) => void;

  private constructor(private readonly defaultTimeoutMs: number) {
    this.closed = new Promise<MpCloseInfo>((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** @internal use rawConnect() */
  static async open(host: string, port: number, opts: RawConnectOptions = {}): Promise<RawConnection> {
    const conn = new RawConnection(opts.defaultTimeoutMs ?? 5000);
    conn.link = await openLink(
      {
        host,
        port,
        transport: opts.transport ?? 'tcp',
        ...(opts.tls ? { tls: opts.tls } : {}),
        ...(opts.wsPath ? { wsPath: opts.wsPath } : {}),
      },
      {
        line: (l) => conn.queue.push(l),
        close: (error) => {
          conn.down = true;
          const info: MpCloseInfo = { byClient: conn.closeRequested, ...(error ? { error } : {}) };
          conn.queue.end(info.byClient ? 'closed by the client' : 'closed by the server');
          conn.resolveClosed(info);
        },
      },
    );
    return conn;
  }

  get isClosed(): boolean {
    return this.down;
  }

  /** Sends `line` + CR LF (TCP/TLS) or `line` as one text frame (WebSocket). */
  sendLine(line: string): void {
    this.link.sendLine(line);
  }

  /** Writes arbitrary bytes as they are (WebSocket: one text frame). */
  write(data: string | Uint8Array): void {
    this.link.write(data);
  }

  /** The next received line; rejects with MP_TIMEOUT, or MP_CLOSED once closed and drained. */
  next(timeoutMs = this.defaultTimeoutMs): Promise<string> {
    return this.queue.next(timeoutMs);
  }

  /** The first line matching (equal to a string, or a RegExp / predicate); earlier lines are discarded. */
  waitFor(match: string | RegExp | ((line: string) => boolean), timeoutMs = this.defaultTimeoutMs): Promise<string> {
    const pred =
      typeof match === 'string' ? (l: string) => l === match : match instanceof RegExp ? (l: string) => match.test(l) : match;
    return this.queue.waitFor(pred, timeoutMs, 'matching line');
  }

  /** Waits `ms` (or until closed) and returns all lines received by then. */
  collect(ms: number): Promise<string[]> {
    return this.queue.collect(ms);
  }

  drain(): string[] {
    return this.queue.drain();
  }

  /** Half-closes (FIN; forced after 1 s) and resolves when closed. */
  close(): Promise<MpCloseInfo> {
    if (!this.down) {
      this.closeRequested = true;
      this.link.end();
    }
    return this.closed;
  }

  destroy(): void {
    if (this.down) return;
    this.closeRequested = true;
    this.link.destroy();
  }
}

/** Opens a raw line connection (TCP by default). Rejects with MP_CONNECT_FAILED. */
export function rawConnect(host: string, port: number, opts: RawConnectOptions = {}): Promise<RawConnection> {
  return RawConnection.open(host, port, opts);
}
