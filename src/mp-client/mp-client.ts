/**
 * A client for the OVMS v2 message protocol (MP), usable as an app (`A`), batch client (`B`),
 * car (`C`) or peer server (`S`), over TCP, TLS or a WebSocket (`/apiv2`), with protection
 * scheme 0 (shared secret; HMAC-MD5 handshake, RC4 + base64 lines) or scheme 1 (username and
 * password; bare plaintext lines). Built only on src/core, node:net/node:tls and ws.
 *
 * ```ts
 * const app = await MpClient.connect({
 *   host: '127.0.0.1', port: 6867, clientType: 'A', vehicleId: 'DEMO1', scheme: 0, password: 'NETPASS',
 * });
 * await app.waitFor('T');            // Z, stored messages, then T<secs> (docs/protocol/mp.md §8.1)
 * app.send('A');
 * assert.deepEqual(await app.next(), { code: 'a', data: '' });
 * await app.close();
 * ```
 *
 * Receiving: every decoded message is appended to an internal, unbounded FIFO (buffered until the
 * caller asks) and also emitted as a `message` event. `next()`, `waitFor()`, `collect()`,
 * `drain()` and `for await (… of client)` consume that FIFO; event listeners only observe and
 * consume nothing. A program that only listens to events should call `drain()` now and then.
 */
import { EventEmitter } from 'node:events';
import { digestBase64, randomToken, sessionKey as deriveSessionKey } from '../core/crypto/digest.js';
import { MpCipher } from '../core/crypto/mp-cipher.js';
import { formatScheme0, parseScheme0, parseScheme1, type MpMessage } from '../core/mp/message.js';
import type { ClientType } from '../core/mp/welcome.js';
import { MpClientError } from './errors.js';
import type { MpClientEvents, MpClientOptions, MpClientStats, MpProtocolError } from './options.js';
import { ReceiveQueue } from './receive-queue.js';
import { openLink, type Link, type MpCloseInfo, type MpTransport } from './transport.js';

export type { MpMessage } from '../core/mp/message.js';
export type { ClientType } from '../core/mp/welcome.js';
export { MpClientError, isMpClientError, type MpClientErrorCode } from './errors.js';
export type { MpCloseInfo, MpTransport } from './transport.js';
export { rawConnect, RawConnection, type RawConnectOptions } from './raw-connection.js';
export type {
  MpClientBaseOptions,
  MpClientEvents,
  MpClientOptions,
  MpClientStats,
  MpProtocolError,
  Scheme0Options,
  Scheme1Options,
} from './options.js';

type State = 'login' | 'open' | 'closed';

export class MpClient extends EventEmitter<MpClientEvents> {
  readonly transport: MpTransport;
  readonly scheme: 0 | 1;
  readonly clientType: ClientType;
  /** Scheme 0: the client token sent in the welcome line. Scheme 1: undefined. */
  readonly clientToken: string | undefined;
  /** Lines that could not be decoded. */
  readonly protocolErrors: MpProtocolError[] = [];
  readonly stats: MpClientStats = { linesSent: 0, linesReceived: 0, bytesSent: 0, bytesReceived: 0 };
  /** Resolves (never rejects) once the connection is closed, by either side. */
  readonly closed: Promise<MpCloseInfo>;

  private readonly opts: MpClientOptions;
  private sessionVehicleId: string;
  private sessionUsername: string | undefined;
  private sessionVehicles: readonly string[] = [];
  private sessionServerToken: string | undefined;
  private sessionKeyBytes: Buffer | undefined;
  private readonly queue = new ReceiveQueue<MpMessage>((m) => `${m.code}${m.data}`);
  private readonly defaultTimeoutMs: number;
  private link: Link | undefined;
  private cipher: MpCipher | undefined;
  private state: State = 'login';
  private closeRequested = false;
  private resolveClosed!: (info: MpCloseInfo) => void;
  private settleLogin: ((err?: Error) => void) | undefined;

  private constructor(opts: MpClientOptions) {
    super();
    this.opts = opts;
    this.transport = opts.transport ?? 'tcp';
    this.scheme = opts.scheme;
    this.clientType = opts.clientType;
    this.sessionVehicleId = opts.vehicleId.toUpperCase();
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? 5000;
    this.clientToken = opts.scheme === 0 ? (opts.clientToken ?? randomToken()) : undefined;
    this.closed = new Promise<MpCloseInfo>((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /**
   * Connects, sends the welcome line and checks the server's reply. Rejects with an
   * MpClientError: MP_CONNECT_FAILED, MP_LOGIN_CLOSED (the server closed the connection, which is
   * how it refuses a login), MP_LOGIN_TIMEOUT or MP_LOGIN_REJECTED (a malformed or
   * unauthenticated reply, or a server token equal to ours).
   */
  static async connect(opts: MpClientOptions): Promise<MpClient> {
    const client = new MpClient(opts);
    await client.login();
    return client;
  }

  /** The session's vehicle id: as requested (upper-cased) for scheme 0; the server's choice for scheme 1. */
  get vehicleId(): string {
    return this.sessionVehicleId;
  }

  /** Scheme 1: the user name the server confirmed. Scheme 0: undefined. */
  get username(): string | undefined {
    return this.sessionUsername;
  }

  /** Scheme 1: all vehicle ids the server listed in `MP-S 1` (docs/protocol/mp.md §5.1). Scheme 0: []. */
  get vehicles(): readonly string[] {
    return this.sessionVehicles;
  }

  /** Scheme 0: the server token of the welcome reply. */
  get serverToken(): string | undefined {
    return this.sessionServerToken;
  }

  /** Scheme 0: the 16-byte session key HMAC-MD5(password, servertoken ‖ clienttoken) (§4.4). */
  get sessionKey(): Buffer | undefined {
    return this.sessionKeyBytes;
  }

  /** True once the connection is down. */
  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Number of received messages not yet consumed. */
  get buffered(): number {
    return this.queue.size;
  }

  /** The welcome line this client sends (without CR LF). */
  welcomeLine(): string {
    const o = this.opts;
    if (o.scheme === 1) return `MP-${o.clientType} 1 ${o.username} ${o.password} ${o.vehicleId}`;
    const digest = digestBase64(o.password, this.clientToken!);
    const shown = o.digestStyle === 'unpadded' ? digest.replace(/=+$/, '') : digest;
    return `MP-${o.clientType} 0 ${this.clientToken} ${shown} ${o.vehicleId}`;
  }

  /**
   * Sends one message `<code><data>`: scheme 0 encrypts `MP-0 <code><data>`; scheme 1 sends it
   * bare. Nothing is validated (a test may send LF or an empty code on purpose).
   * Throws MP_CLOSED when the connection is down.
   */
  send(code: string, data = ''): void {
    this.sendPlaintext(this.scheme === 0 ? formatScheme0(code, data) : `${code}${data}`);
  }

  /**
   * Sends an arbitrary plaintext through the session layer: scheme 0 encrypts it as it is (so
   * `sendPlaintext('garbage')` reaches the server as a well-encrypted line that is not `MP-0 …`);
   * scheme 1 sends it as the bare line.
   */
  sendPlaintext(plaintext: string): void {
    this.sendRaw(this.scheme === 0 ? this.cipher!.encrypt(plaintext) : plaintext);
  }

  /** Sends one line exactly as given (no encryption), plus CR LF (TCP/TLS) or as one frame (WebSocket). */
  sendRaw(line: string): void {
    if (this.state !== 'open' || !this.link?.isOpen) throw new MpClientError('MP_CLOSED', 'the connection is closed');
    this.count('sent', line);
    this.link.sendLine(line);
  }

  /** The next received message; rejects with MP_TIMEOUT, or MP_CLOSED once closed and drained. */
  next(timeoutMs = this.defaultTimeoutMs): Promise<MpMessage> {
    return this.queue.next(timeoutMs);
  }

  /**
   * The first message with that code (string) or matching the predicate. Messages received before
   * it are consumed and discarded (the timeout error lists them). Rejects like next().
   */
  waitFor(match: string | ((m: MpMessage) => boolean), timeoutMs = this.defaultTimeoutMs): Promise<MpMessage> {
    const pred = typeof match === 'string' ? (m: MpMessage) => m.code === match : match;
    const what = typeof match === 'string' ? `'${match}' message` : 'matching message';
    return this.queue.waitFor(pred, timeoutMs, what);
  }

  /**
   * Waits `ms` (or until the connection closes) and returns every message received by then,
   * including ones already buffered when called. Consumes them.
   */
  collect(ms: number): Promise<MpMessage[]> {
    return this.queue.collect(ms);
  }

  /** Removes and returns the buffered messages without waiting. */
  drain(): MpMessage[] {
    return this.queue.drain();
  }

  /** Iterates over received messages until the connection is closed and the buffer is empty. */
  [Symbol.asyncIterator](): AsyncGenerator<MpMessage, void, undefined> {
    return this.queue[Symbol.asyncIterator]();
  }

  /** Closes gracefully (FIN or a close frame; forced after 1 s) and resolves when closed. */
  close(): Promise<MpCloseInfo> {
    if (this.state !== 'closed') {
      this.closeRequested = true;
      this.link?.end();
    }
    return this.closed;
  }

  /** Drops the connection at once (simulates a vanishing peer). */
  destroy(): void {
    if (this.state === 'closed') return;
    this.closeRequested = true;
    this.link?.destroy();
  }

  // ---- internals ---------------------------------------------------------------------------

  private async login(): Promise<void> {
    const timeoutMs = this.opts.timeoutMs ?? 10000;
    const outcome = new Promise<void>((resolve, reject) => {
      this.settleLogin = (err) => {
        this.settleLogin = undefined;
        if (err) reject(err);
        else resolve();
      };
    });
    const timer = setTimeout(() => {
      this.failLogin(new MpClientError('MP_LOGIN_TIMEOUT', `no welcome reply within ${timeoutMs} ms`));
    }, timeoutMs);
    openLink(
      {
        host: this.opts.host,
        port: this.opts.port,
        transport: this.transport,
        ...(this.opts.tls ? { tls: this.opts.tls } : {}),
        ...(this.opts.wsPath ? { wsPath: this.opts.wsPath } : {}),
        ...(this.opts.localAddress ? { localAddress: this.opts.localAddress } : {}),
      },
      { line: (l) => this.onLine(l), close: (e) => this.onClose(e) },
    ).then(
      (link) => {
        if (this.settleLogin === undefined) {
          link.destroy(); // the login timed out while connecting
          return;
        }
        this.link = link;
        const welcome = this.welcomeLine();
        this.count('sent', welcome);
        link.sendLine(welcome);
      },
      (err: unknown) => this.settleLogin?.(err as Error),
    );
    try {
      await outcome;
    } catch (err) {
      this.state = 'closed';
      this.queue.end('login failed');
      if (this.link) this.link.destroy();
      else this.resolveClosed({ byClient: false });
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private failLogin(err: MpClientError): void {
    const settle = this.settleLogin;
    if (!settle) return;
    this.link?.destroy();
    settle(err);
  }

  private onLine(line: string): void {
    this.count('received', line);
    if (this.state === 'login') {
      this.onWelcomeReply(line);
      return;
    }
    if (this.state !== 'open') return;
    this.emit('line', line);
    const msg = this.decode(line);
    if (!msg) return;
    if (this.opts.buffer !== false) this.queue.push(msg);
    this.emit('message', msg);
    if (this.opts.autoPong && msg.code === 'A' && this.link?.isOpen) this.send('a');
  }

  private onWelcomeReply(line: string): void {
    const o = this.opts;
    let problem: string | undefined;
    if (o.scheme === 0) {
      const m = /^MP-S 0 (\S+) (\S+)$/.exec(line);
      if (!m) problem = 'expected exactly "MP-S 0 <servertoken> <serverdigest>"';
      else if (m[1] === this.clientToken) problem = 'the server token equals the client token';
      else if (m[2] !== digestBase64(o.password, m[1]!)) problem = 'the server digest does not authenticate';
      else {
        this.sessionServerToken = m[1]!;
        this.sessionKeyBytes = deriveSessionKey(o.password, m[1]!, this.clientToken!);
        this.cipher = new MpCipher(this.sessionKeyBytes);
      }
    } else {
      const m = /^MP-S 1 (\S+) (\S+)((?: \S+)*)$/.exec(line);
      if (!m) problem = 'expected "MP-S 1 <username> <vehicleid> <vehicleids…>"';
      else {
        this.sessionUsername = m[1]!;
        this.sessionVehicleId = m[2]!;
        this.sessionVehicles = m[3]!.split(' ').filter((v) => v.length > 0);
      }
    }
    if (problem) {
      this.state = 'closed';
      this.failLogin(new MpClientError('MP_LOGIN_REJECTED', problem, { reply: line }));
      return;
    }
    this.state = 'open';
    this.settleLogin?.();
  }

  private decode(line: string): MpMessage | null {
    let msg: MpMessage | null;
    if (this.scheme === 0) {
      const plaintext = this.cipher!.decrypt(line);
      if (plaintext === null) return this.protocolError({ line, reason: 'not-base64' });
      msg = parseScheme0(plaintext);
      if (!msg) return this.protocolError({ line, reason: 'not-mp0', plaintext });
    } else {
      if (line.length === 0) return this.protocolError({ line, reason: 'empty-line' });
      msg = parseScheme1(line);
      if (!msg) return this.protocolError({ line, reason: 'no-code' });
    }
    return msg;
  }

  private protocolError(e: MpProtocolError): null {
    this.protocolErrors.push(e);
    this.emit('protocolError', e);
    return null;
  }

  private onClose(error: Error | undefined): void {
    const wasLogin = this.state === 'login';
    this.state = 'closed';
    const info: MpCloseInfo = { byClient: this.closeRequested, ...(error ? { error } : {}) };
    if (wasLogin) {
      const why = error ? `: ${error.message}` : '';
      this.failLogin(
        new MpClientError('MP_LOGIN_CLOSED', `the server closed the connection during login${why}`, { cause: error }),
      );
    }
    this.queue.end(info.byClient ? 'closed by the client' : `closed by the server${error ? ` (${error.message})` : ''}`);
    this.resolveClosed(info);
    this.emit('close', info);
  }

  private count(dir: 'sent' | 'received', line: string): void {
    const bytes = Buffer.byteLength(line, 'utf8') + 2;
    if (dir === 'sent') {
      this.stats.linesSent++;
      this.stats.bytesSent += bytes;
    } else {
      this.stats.linesReceived++;
      this.stats.bytesReceived += bytes;
    }
  }
}
