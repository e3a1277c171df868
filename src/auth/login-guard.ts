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

  constructor(
    limits: LoginLimits | undefined,
    private readonly now: () => number,
  ) {
    this.throttle = new LoginThrottle(limits);
  }

  /**
   * Runs `check` when `address` may try a secret of `account` now; `check` answers the value that
   * a right secret yields, or null for a wrong one. Busy password checks count as throttled.
   */
  async attempt<T>(client: string, account: string, check: () => Promise<T | null>): Promise<GuardOutcome<T>> {
    // IPv6 by its /64 (a host has a whole /64 to pick from), IPv4-mapped as IPv4: one key per client
    const address = addressKey(client);
    let admission = this.throttle.admit(address, account, this.now());
    // the budget is held by checks still running: wait for one to settle, then ask again
    while (!admission.admitted && admission.pending) {
      await new Promise<void>((wake) => this.waiting.push({ address, account, wake }));
      admission = this.throttle.admit(address, account, this.now());
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
      return { ok: false, throttled: false };
    }
    this.settled(ticket, () => this.throttle.succeeded(ticket, this.now()));
    return { ok: true, value };
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
