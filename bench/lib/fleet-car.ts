/**
 * An emulated module of the fleet benchmark: one TCP connection from its own source address,
 * a scheme-0 car login, then what a parked OVMS v3 module sends over the v2 link with no app
 * connected (src/module/links/mp-link.ts, docs/protocol/mp.md §13.2): its records once after the
 * login, then `S` and `D` every `updatetime.idle` (600 s), and a ping `A` every 900 s
 * (`timeout.rx` − 60); it answers the server's pings. The benchmark also sends `L` with every `S`
 * and `D` (the firmware sends it only when the position changed): a little more than a parked
 * car. Its records say it is parked, off and unplugged, or (`charging`) on, plugged in and
 * charging (bench/lib/payloads.ts). After a drop it reconnects at a random delay of 0–`retryMaxMs`, as modules do after a
 * server restart, again after every failed try. Lean: one cipher, a line splitter, no buffering.
 */
import { connect, type Socket } from 'node:net';
import { MpCipher } from '../../src/core/crypto/mp-cipher.js';
import { digestBase64, randomToken, sessionKey } from '../../src/core/crypto/digest.js';
import { parseScheme0 } from '../../src/core/mp/message.js';
import { LineSplitter } from '../../src/core/mp/line-splitter.js';
import { D, D_PARKED, L, L_PARKED, S, S_PARKED } from './payloads.js';

/** Seconds between a parked module's S and D (`updatetime.idle`) and between its pings. */
export const PARKED_RECORDS_S = 600;
export const PING_S = 900;

/** Why a try to get online failed, as the module sees it. */
export type FailReason = 'connect refused' | 'connect failed' | 'closed before the welcome reply' | 'no welcome reply in time';

export interface FleetEvents {
  online(car: FleetCar, atMs: number): void;
  failed(car: FleetCar, reason: FailReason, detail: string): void;
  dropped(car: FleetCar): void;
  /** The car sent `lines` messages (S, D, L, A, or the answer `a` to a ping) after its login. */
  sent(car: FleetCar, lines: number): void;
}

export class FleetCar {
  socket: Socket | null = null;
  online = false;
  /** When the current try began, when its TCP connection was up, when it got the welcome reply (performance.now ms). */
  startedAt = 0;
  connectedAt = 0;
  onlineAt = 0;
  /** Whether it reconnects after a drop or a failure. */
  retry = true;
  retryMaxMs = 10_000;
  private cipher: MpCipher | null = null;
  private readonly splitter = new LineSplitter(64 * 1024);
  private retryTimer: NodeJS.Timeout | null = null;
  private welcomeTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly id: string,
    private readonly password: string,
    readonly localAddress: string,
    /** The server's MP port: the next try goes to it (a load balancer or DNS name that moved the car to another node). */
    public port: number,
    private readonly events: FleetEvents,
    private readonly welcomeTimeoutMs = 20_000,
    /**
     * The local port of each try (a car behind a NAT): many sockets bound to one address with port
     * 0 make the kernel's search for a free port (and the bench's event loop) slow, which a real
     * NAT does not; a port of its own per try avoids it. Undefined: the kernel picks.
     */
    private readonly localPortOf?: (attempt: number) => number,
    /** Whether its records say it is on and charging (each `S` then extends its charge and drive sessions), or parked, off, with the cable out. */
    charging = false,
  ) {
    this.records = charging ? [S, D, L] : [S_PARKED, D_PARKED, L_PARKED];
  }
  private readonly records: readonly string[];
  private attempts = 0;

  /** Connects now (once; the retries follow from `retry`). */
  start(): void {
    if (this.socket) return;
    this.startedAt = performance.now();
    const localPort = this.localPortOf?.(this.attempts++);
    const socket = connect({ host: '127.0.0.1', port: this.port, localAddress: this.localAddress, ...(localPort === undefined ? {} : { localPort }) });
    this.socket = socket;
    socket.setNoDelay(true);
    let connected = false;
    let welcomed = false;
    const clientToken = randomToken();
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (connected) return; // a reset after connecting shows as the close
      this.fail(err.code === 'ECONNREFUSED' ? 'connect refused' : 'connect failed', err.code ?? err.message);
    });
    socket.once('connect', () => {
      connected = true;
      this.connectedAt = performance.now();
      socket.write(`MP-C 0 ${clientToken} ${digestBase64(this.password, clientToken)} ${this.id}\r\n`);
      this.welcomeTimer = setTimeout(() => this.fail('no welcome reply in time', `${this.welcomeTimeoutMs} ms`), this.welcomeTimeoutMs);
    });
    socket.on('data', (chunk: Buffer) =>
      this.splitter.push(chunk, (line) => {
        if (!welcomed) {
          welcomed = true;
          if (this.welcomeTimer) clearTimeout(this.welcomeTimer);
          const serverToken = line.split(' ')[2] ?? '';
          this.cipher = new MpCipher(sessionKey(this.password, serverToken, clientToken));
          this.online = true;
          this.onlineAt = performance.now();
          this.events.online(this, this.onlineAt);
          this.sendAll(this.records);
          return true;
        }
        const plain = this.cipher?.decrypt(line);
        const msg = plain ? parseScheme0(plain) : null;
        if (msg?.code === 'A') this.sendAll(['a']);
        return true;
      }),
    );
    socket.once('close', () => {
      if (this.welcomeTimer) clearTimeout(this.welcomeTimer);
      if (this.socket !== socket) return;
      if (welcomed) {
        this.online = false;
        this.events.dropped(this);
        this.reset();
      } else if (connected) {
        this.fail('closed before the welcome reply', '');
      } else {
        this.reset(); // the error was reported
      }
    });
  }

  /** The parked module's periodic records. */
  sendRecords(): void {
    if (this.online) this.sendAll(this.records);
  }

  ping(): void {
    if (this.online) this.sendAll(['A']);
  }

  /** Closes for good (no retry). */
  stop(): void {
    this.retry = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.socket?.destroy();
    this.socket = null;
    this.online = false;
  }

  private fail(reason: FailReason, detail: string): void {
    if (!this.socket) return;
    this.events.failed(this, reason, detail);
    this.socket.destroy();
    this.reset();
  }

  private reset(): void {
    this.socket = null;
    this.cipher = null;
    if (!this.retry || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.start();
    }, Math.random() * this.retryMaxMs);
  }

  private sendAll(messages: readonly string[]): void {
    const socket = this.socket;
    if (!socket || !this.cipher) return;
    let out = '';
    for (const m of messages) out += this.cipher.encrypt('MP-0 ' + m) + '\r\n';
    socket.write(out);
    this.events.sent(this, messages.length);
  }
}

/**
 * The source address of car `k`: one address per car, spread over 127.0.0.0/8 from 127.1.0.1 on
 * (254 per /24, never .0 or .255), so the server's per-address cap stays on and each address has
 * its own ephemeral ports.
 */
export function carAddress(k: number): string {
  const net = Math.floor(k / 254);
  return `127.${1 + Math.floor(net / 256)}.${net % 256}.${(k % 254) + 1}`;
}
