/**
 * One MP connection, whatever carries it (TCP, TLS or a WebSocket): the welcome line, the login,
 * then message framing (scheme 0: RC4 + base64; scheme 1: plain lines) in and out of the hub.
 * Bad input closes only this connection, with a log line that holds no secret.
 */
import { parseWelcome, type ClientType, type LoginWelcome } from '../core/mp/welcome.js';
import { formatScheme0, parseScheme0, parseScheme1 } from '../core/mp/message.js';
import type { MpCipher } from '../core/crypto/mp-cipher.js';
import { inactivityAction, type ActivityState } from '../core/mp/inactivity.js';
import type { Peer } from '../hub/links/peer.js';
import type { MpContext } from './context.js';
import { checkLogin, type LoginResult } from './login.js';
import { userAccount, vehicleAccount } from '../auth/login-guard.js';
import { logStoreFailure } from '../store/outage.js';

/** How a connection's lines leave: a socket (adds CR LF) or a WebSocket (one frame per line). */
export interface LineSink {
  readonly remoteAddress: string;
  readonly transport: 'tcp' | 'tls' | 'ws' | 'wss';
  writeLine(line: string): void;
  /** Bytes accepted for sending but not yet sent. */
  bufferedBytes(): number;
  /** Stops reading (back-pressure); `resume` reads on. */
  pause(): void;
  resume(): void;
  /** Closes gracefully (flushes what was written). */
  end(): void;
  /** Drops at once. */
  destroy(): void;
  /** The peer logged in as a car: its connection stops counting toward the per-address cap. */
  releaseFromCap?(): void;
}

type State = 'welcome' | 'authenticating' | 'open' | 'closed';

/** How long the server may take to answer a welcome line before it gives the login up (at least the login timeout). */
export const LOGIN_CHECK_MS = 60_000;

/** The hub's view of a logged-in connection. */
class MpSession implements Peer {
  ptoken = '';

  constructor(
    private readonly conn: MpConnection,
    readonly clientType: ClientType,
    readonly vehicleId: string,
    readonly ownerId: number,
    public rxBytes: number,
    public txBytes: number,
    readonly userId?: number,
    readonly access?: 'owner' | 'control' | 'view',
  ) {}

  get id(): number {
    return this.conn.id;
  }

  get remoteAddress(): string {
    return this.conn.remoteAddress;
  }

  send(code: string, data: string): void {
    this.conn.sendMessage(code, data);
  }

  close(reason: string): void {
    this.conn.close(reason);
  }
}

export class MpConnection implements ActivityState {
  readonly id: number;
  state: State = 'welcome';
  /** Set once the login succeeded. */
  session: MpSession | null = null;
  /** Bytes counted before the login (handed to the session at login). */
  private rxBytes = 0;
  private txBytes = 0;
  readonly openedAt: number;
  lastRx: number;
  lastTx: number;
  lastPing = 0;
  private cipher: MpCipher | null = null;
  private pending: string[] = [];
  private autoProvisioned = false;
  private attaching = false;
  /**
   * Closes the connection unless its welcome line has come by then (`timeouts.welcomeMs`); once it
   * has, unless the server has answered it within `LOGIN_CHECK_MS` (the client did its part: in a
   * reconnect storm a login may wait for the store behind thousands of others, and closing it
   * would only make the car try again, with the work done so far lost).
   */
  private loginTimer: NodeJS.Timeout | null;
  /**
   * Back-pressure on a car: while its reading is paused, the lines that still came in (the rest
   * of a chunk) wait here, in order; null while it is read.
   */
  private paced: string[] | null = null;
  /** The store's commit count when this car's message count below began, and the count. */
  private windowCommits = -1;
  private windowMessages = 0;

  constructor(
    private readonly ctx: MpContext,
    private readonly sink: LineSink,
  ) {
    this.id = ctx.nextConnectionId();
    this.openedAt = this.lastRx = this.lastTx = Date.now();
    // the inactivity sweep is far coarser: an idle or stalled socket must not hold a descriptor
    this.loginTimer = setTimeout(() => this.loginTimedOut(), ctx.timeouts.welcomeMs);
    this.loginTimer.unref();
  }

  /** No welcome line within the login timeout (`--timeout-login`), or no answer to it in time: the connection is closed. */
  private loginTimedOut(): void {
    this.loginTimer = null;
    if (this.state !== 'welcome' && this.state !== 'authenticating') return;
    // debug, not info: a flood of idle connections must not flood the log too
    this.ctx.log.debug({ conn: this.id, address: this.remoteAddress, state: this.state }, 'no login in time: closing');
    this.close('login timeout');
  }

  private stopLoginTimer(): void {
    if (this.loginTimer) clearTimeout(this.loginTimer);
    this.loginTimer = null;
  }

  /**
   * The socket went to the WebSocket side (its first bytes were an HTTP request), which makes a
   * connection of its own: this one ends without touching the socket.
   */
  abandon(): void {
    this.stopLoginTimer();
    this.state = 'closed';
  }

  get remoteAddress(): string {
    return this.sink.remoteAddress;
  }

  get clientType(): ClientType | null {
    return this.session?.clientType ?? null;
  }

  get vehicleId(): string | undefined {
    return this.session?.vehicleId;
  }

  // --- input ---

  /** One received line (without its line end); `bytes` as counted for traffic accounting. */
  receiveLine(line: string, bytes = line.length + 2): void {
    if (this.state === 'closed') return;
    if (this.session) this.session.rxBytes += bytes;
    else this.rxBytes += bytes;
    this.lastRx = Date.now();
    try {
      switch (this.state) {
        case 'welcome':
          return this.welcome(line);
        case 'authenticating':
          return this.hold(line);
        case 'open':
          if (this.attaching) return this.hold(line);
          if (this.paced) {
            this.paced.push(line);
            return;
          }
          return this.message(line);
      }
    } catch (err) {
      this.ctx.log.error({ err, conn: this.id }, 'error while handling a line: closing the connection');
      this.close('internal error');
    }
  }

  /** Keeps a line that arrived while the login is checked or replayed, within a limit. */
  private hold(line: string): void {
    if (this.pending.length >= this.ctx.limits.maxPendingLines) return this.fail('too many lines before login completed');
    this.pending.push(line);
  }

  private welcome(line: string): void {
    const w = parseWelcome(line);
    switch (w.kind) {
      case 'error':
        return this.fail(`bad welcome line (${w.reason})`);
      case 'autoprovision':
        return this.autoProvision(w.scheme, w.key);
      case 'login':
        this.state = 'authenticating';
        this.stopLoginTimer();
        this.loginTimer = setTimeout(() => this.loginTimedOut(), Math.max(LOGIN_CHECK_MS, this.ctx.timeouts.welcomeMs));
        this.loginTimer.unref();
        void this.login(w);
    }
  }

  private async login(w: LoginWelcome): Promise<void> {
    const { guard, log, hub } = this.ctx;
    const address = this.remoteAddress;
    const account = w.scheme === '0' ? vehicleAccount(w.vehicleId) : userAccount(w.field1);
    let failed: Extract<LoginResult, { ok: false }> | undefined;
    let outcome;
    try {
      outcome = await guard.attempt(address, account, async () => {
        const r = await checkLogin(this.ctx.store, this.ctx.credentials, w, hub.now());
        if (r.ok) return r;
        failed = r;
        return null;
      });
    } catch (err) {
      this.storeFailed(err, 'login check failed');
      return this.fail('login check failed');
    }
    if (this.state !== 'authenticating') return; // the peer left meanwhile
    if (outcome.ok) return this.open(w, outcome.value);
    if (outcome.throttled) {
      return this.fail(`login refused: too many failed logins (${outcome.limit} limit), retry in ${outcome.retryAfterSeconds} s`);
    }
    const refused = failed as Extract<LoginResult, { ok: false }> | undefined; // set inside the check
    if (w.clientType === 'C' && refused?.vehicleId) this.carAuthAlert(refused.vehicleId, false);
    log.info(
      { conn: this.id, address, type: w.clientType, scheme: w.scheme, vehicle: w.vehicleId, reason: refused?.reason },
      'login failed',
    );
    return this.close('login failed');
  }

  private open(w: LoginWelcome, login: Extract<LoginResult, { ok: true }>): void {
    const { hub, log } = this.ctx;
    const { vehicle, reply, cipher } = login;
    this.stopLoginTimer();
    this.writeLine(reply); // in clear, before anything else
    const session = new MpSession(this, w.clientType, vehicle.id, vehicle.ownerId, this.rxBytes, this.txBytes, login.userId, login.access);
    this.session = session;
    this.cipher = cipher;
    this.state = 'open';
    log.info(
      { conn: this.id, address: this.remoteAddress, type: w.clientType, scheme: w.scheme, vehicle: vehicle.id, transport: this.sink.transport },
      'login',
    );
    if (w.clientType === 'C') {
      // one connection per vehicle from here on (a new login replaces it): many cars behind one NAT address all get in
      this.sink.releaseFromCap?.();
      this.carAuthAlert(vehicle.id, true);
    }
    // lines that arrive while attach() replays the stored messages wait, then run in order
    this.attaching = true;
    hub
      .attach(session, vehicle)
      .catch((err: unknown) => {
        this.storeFailed(err, 'after-login exchange failed');
        this.close('internal error');
      })
      .finally(() => {
        this.attaching = false;
        const lines = this.pending;
        this.pending = [];
        for (const line of lines) this.receiveLine(line, 0);
      });
  }

  /** A failure of the store while serving this connection (at debug only in an outage). */
  private storeFailed(err: unknown, what: string): void {
    logStoreFailure(this.ctx.log, 'error', err, { conn: this.id }, what);
  }

  /** REF raises an alert on the first failed car login of a vehicle and one on the next success (the hub decides). */
  private carAuthAlert(vehicleId: string, success: boolean): void {
    const address = this.remoteAddress;
    this.ctx.store.getVehicle(vehicleId).then(
      (v) => {
        if (v) this.ctx.hub.carLoginResult(v.id, v.ownerId, success, address);
      },
      (err: unknown) => logStoreFailure(this.ctx.log, 'warn', err, { vehicle: vehicleId }, 'car login alert: vehicle lookup failed'),
    );
  }

  private autoProvision(scheme: string, key: string): void {
    if (scheme !== '0') return this.fail('auto-provisioning with an unsupported scheme');
    if (this.autoProvisioned) {
      this.writeLine('AP-X');
      return;
    }
    this.autoProvisioned = true;
    this.state = 'authenticating';
    this.ctx.store.getAutoProvision(key).then(
      (rec) => {
        if (this.state === 'closed') return;
        this.writeLine(rec ? `AP-S 0 ${rec.serverToken} ${rec.serverDigest} ${rec.message}` : 'AP-X');
        this.ctx.log.info({ conn: this.id, found: rec !== undefined }, 'auto-provisioning request');
        this.state = 'welcome';
        const lines = this.pending;
        this.pending = [];
        for (const line of lines) this.receiveLine(line, 0);
      },
      (err: unknown) => {
        this.storeFailed(err, 'auto-provisioning lookup failed');
        this.close('internal error');
      },
    );
  }

  private message(line: string): void {
    if (line.length === 0) return; // FW3 sends an empty line for command 5; REF closed on it
    let msg;
    if (this.cipher) {
      const plain = this.cipher.decrypt(line);
      if (plain === null) return this.fail('undecodable line (not base64)');
      msg = parseScheme0(plain);
      if (!msg) return this.fail('unable to decode message');
    } else {
      msg = parseScheme1(line);
      if (!msg) return; // only blanks
    }
    this.ctx.hub.handle(this.session!, msg);
    if (this.session!.clientType === 'C') this.pace();
  }

  /**
   * Back-pressure, per car connection: a car that has sent its share of messages since the
   * store's last commit (`maxCarMessagesPerCommit`), or any car while the store holds as many
   * writes as it may (`Store.congested`: the database is slow or away), is read no further until
   * what was stored before is committed. Only that connection waits; nothing is dropped.
   */
  private pace(): void {
    const store = this.ctx.store;
    const commits = store.commits();
    if (commits !== this.windowCommits) {
      this.windowCommits = commits;
      this.windowMessages = 0;
    }
    if (++this.windowMessages < this.ctx.limits.maxCarMessagesPerCommit && !store.congested()) return;
    if (this.paced) return;
    this.paced = [];
    this.sink.pause();
    store.afterCommit(() => this.unpace());
  }

  private unpace(): void {
    const lines = this.paced;
    this.paced = null;
    if (this.state === 'closed' || lines === null) return;
    this.sink.resume();
    this.windowMessages = 0;
    this.windowCommits = this.ctx.store.commits();
    // the lines read before the pause took effect, in order (a new pause keeps the rest)
    for (const line of lines) this.receiveLine(line, 0);
  }

  // --- output ---

  sendMessage(code: string, data: string): void {
    if (this.state !== 'open') return;
    this.writeLine(this.cipher ? this.cipher.encrypt(formatScheme0(code, data)) : code + data);
  }

  private writeLine(line: string): void {
    if (this.state === 'closed') return;
    this.sink.writeLine(line);
    if (this.session) this.session.txBytes += line.length + 2;
    else this.txBytes += line.length + 2;
    this.lastTx = Date.now();
    if (this.sink.bufferedBytes() > this.ctx.limits.maxWriteBuffer) {
      this.ctx.log.warn({ conn: this.id, vehicle: this.vehicleId }, 'peer does not read: dropping the connection');
      this.terminate();
    }
  }

  // --- lifecycle ---

  /** Called by the inactivity sweep. */
  tick(now: number): void {
    if (this.state === 'closed') return;
    const action = inactivityAction(this, now, this.ctx.timeouts);
    if (action === 'close') {
      this.ctx.log.info({ conn: this.id, type: this.clientType, vehicle: this.vehicleId }, 'inactivity timeout');
      this.close('inactivity timeout');
    } else if (action === 'ping') {
      this.lastPing = now;
      this.sendMessage('A', 'FA');
    }
  }

  private fail(reason: string): void {
    this.ctx.log.info({ conn: this.id, address: this.remoteAddress, vehicle: this.vehicleId }, reason);
    this.close(reason);
  }

  /** Ends the connection gracefully and unregisters it. */
  close(_reason: string): void {
    this.stopLoginTimer();
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.session) this.ctx.hub.detach(this.session);
    this.sink.end();
  }

  /** Drops the connection at once (a peer that does not read). */
  terminate(): void {
    this.stopLoginTimer();
    if (this.state !== 'closed') {
      this.state = 'closed';
      if (this.session) this.ctx.hub.detach(this.session);
    }
    this.sink.destroy();
  }

  /** The transport is gone (socket closed or errored). */
  transportClosed(): void {
    this.stopLoginTimer();
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.session) {
      this.ctx.log.info({ conn: this.id, type: this.clientType, vehicle: this.vehicleId }, 'disconnected');
      this.ctx.hub.detach(this.session);
    }
  }
}
