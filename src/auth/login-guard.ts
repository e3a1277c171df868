/**
 * The one way vts checks a secret that a client sent (an account password or token, a car
 * password, an MP login digest): the attempt is counted in the login throttle before the check
 * runs (src/core/login-throttle.ts), a refused attempt is not checked at all, and a right secret
 * gives its attempt back. An attempt whose budget is held only by checks still running waits for
 * them instead of being refused, so honest clients that log in at once are all served. Every adapter (HTTP API, web sign-in, custom API, `/mqapi`, MP scheme 0
 * and 1, MQTT) calls `attempt`, so the limits are the same on every path.
 */
import { addressKey } from '../core/address-key.js';
import { type LoginLimits, LoginThrottle, type Ticket } from '../core/login-throttle.js';
import { ChecksBusy } from './check-queue.js';

/**
 * What the other nodes of a cluster must count too: a wrong secret, and a pair that became trusted
 * (src/hub/cluster/cluster.ts `broadcast`).
 */
export type SharedLoginEvent = { kind: 'failed'; address: string; account: string; trusted: boolean } | { kind: 'trusted'; address: string; account: string };

/** A shared event as it arrives from another node, checked; null when it is not one. */
export function parseSharedLoginEvent(body: unknown): SharedLoginEvent | null {
  if (typeof body !== 'object' || body === null) return null;
  const e = body as Record<string, unknown>;
  if (typeof e.address !== 'string' || typeof e.account !== 'string') return null;
  if (e.kind === 'failed' && typeof e.trusted === 'boolean') return { kind: 'failed', address: e.address, account: e.account, trusted: e.trusted };
  if (e.kind === 'trusted') return { kind: 'trusted', address: e.address, account: e.account };
  return null;
}

export type GuardOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; throttled: false }
  | { ok: false; throttled: true; retryAfterSeconds: number; limit: string };

/** The throttle's account key of a user name (password and token logins). */
export const userAccount = (name: string): string => `user:${name.toLowerCase()}`;
/** The throttle's account key of a vehicle (car-password checks). */
export const vehicleAccount = (id: string): string => `vehicle:${id.toUpperCase()}`;

export class LoginGuard {
  readonly throttle: LoginThrottle;
  /** Attempts refused without a check, and checks that failed (for metrics). */
  throttled = 0;
  failures = 0;
  /** Attempts waiting for checks in flight to settle: what they wait on, and how to wake them. */
  private waiting: { address: string; account: string; wake: () => void }[] = [];
  /** Tells the other nodes of a cluster what they must count too (none on a single node). */
  share: ((event: SharedLoginEvent) => void) | null = null;

  constructor(
    limits: LoginLimits | undefined,
    private readonly now: () => number,
  ) {
    this.throttle = new LoginThrottle(limits);
  }

  /**
   * Runs `check` when `address` may try a secret of `account` now; `check` answers the value that
   * a right secret yields, or null for a wrong one. Busy password checks count as throttled.
   * `perAddress`: only the (address, account) bucket applies, so that wrong secrets from other
   * addresses never refuse this one (the metrics token).
   */
  async attempt<T>(client: string, account: string, check: () => Promise<T | null>, opts: { perAddress?: boolean } = {}): Promise<GuardOutcome<T>> {
    // IPv6 by its /64 (a host has a whole /64 to pick from), IPv4-mapped as IPv4: one key per client
    const address = addressKey(client);
    const pairOnly = opts.perAddress === true;
    let admission = this.throttle.admit(address, account, this.now(), pairOnly);
    // the budget is held by checks still running: wait for one to settle, then ask again
    while (!admission.admitted && admission.pending) {
      await new Promise<void>((wake) => this.waiting.push({ address, account, wake }));
      admission = this.throttle.admit(address, account, this.now(), pairOnly);
    }
    if (!admission.admitted) {
      this.throttled++;
      return { ok: false, throttled: true, retryAfterSeconds: admission.retryAfterSeconds, limit: admission.limit };
    }
    const ticket = admission.ticket;
    let value: T | null;
    try {
      value = await check();
    } catch (err) {
      this.settled(ticket, () => this.throttle.cancel(ticket, this.now()));
      if (!(err instanceof ChecksBusy)) throw err;
      this.throttled++;
      return { ok: false, throttled: true, retryAfterSeconds: 1, limit: 'checks' };
    }
    if (value === null) {
      this.failures++;
      this.settled(ticket, () => this.throttle.failed(ticket));
      this.share?.({ kind: 'failed', address, account, trusted: ticket.trusted });
      return { ok: false, throttled: false };
    }
    const newlyTrusted = this.share !== null && !this.throttle.isTrusted(address, account, this.now());
    this.settled(ticket, () => this.throttle.succeeded(ticket, this.now()));
    if (newlyTrusted) this.share?.({ kind: 'trusted', address, account });
    return { ok: true, value };
  }

  /** What another node of the cluster counted: counted here too. */
  applyShared(event: SharedLoginEvent): void {
    if (event.kind === 'failed') this.throttle.charge(event.address, event.account, event.trusted, this.now());
    else this.throttle.trustPair(event.address, event.account, this.now());
  }

  /** Records how a check ended, then lets the attempts that waited on its buckets ask again. */
  private settled(ticket: Ticket, record: () => void): void {
    record();
    const all = this.waiting;
    this.waiting = [];
    const woken: (() => void)[] = [];
    for (const w of all) {
      if (w.address === ticket.address || w.account === ticket.account) woken.push(w.wake);
      else this.waiting.push(w);
    }
    for (const wake of woken) wake();
  }

  sweep(): void {
    this.throttle.sweep(this.now());
  }
}
