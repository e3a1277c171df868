/**
 * Failed-login throttling per source address (pure: the caller passes the clock). After `free`
 * failures within `window` seconds, each further attempt from that address must wait
 * `baseDelay × 2^(excess−1)` seconds (capped at `maxDelay`) before it is even checked; beyond
 * `lockoutAfter` failures the address is refused outright until its window expires.
 */
export interface LoginThrottleOptions {
  free: number;
  windowSeconds: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  lockoutAfter: number;
}

/** Per (address, vehicle or user): the brute-force guard. */
export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  free: 10,
  windowSeconds: 600,
  baseDelaySeconds: 1,
  maxDelaySeconds: 30,
  lockoutAfter: 100,
};

/** Per user name (HTTP): delays only, never a lockout (that would let anyone lock a user out). */
export const DEFAULT_USER_THROTTLE: LoginThrottleOptions = {
  free: 10,
  windowSeconds: 600,
  baseDelaySeconds: 1,
  maxDelaySeconds: 10,
  lockoutAfter: Number.POSITIVE_INFINITY,
};

/** Per source address alone: looser, as many modules may share one carrier NAT address. */
export const DEFAULT_ADDRESS_THROTTLE: LoginThrottleOptions = {
  free: 100,
  windowSeconds: 600,
  baseDelaySeconds: 1,
  maxDelaySeconds: 30,
  lockoutAfter: 1000,
};

interface Entry {
  failures: number;
  windowEnds: number;
}

export type ThrottleDecision = { action: 'allow' } | { action: 'delay'; seconds: number } | { action: 'refuse' };

export class LoginThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly opts: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE) {}

  check(address: string, now: number): ThrottleDecision {
    const e = this.live(address, now);
    if (!e || e.failures < this.opts.free) return { action: 'allow' };
    if (e.failures >= this.opts.lockoutAfter) return { action: 'refuse' };
    const excess = e.failures - this.opts.free + 1;
    const seconds = Math.min(this.opts.maxDelaySeconds, this.opts.baseDelaySeconds * 2 ** (excess - 1));
    return { action: 'delay', seconds };
  }

  recordFailure(address: string, now: number): void {
    const e = this.live(address, now);
    if (e) e.failures++;
    else this.entries.set(address, { failures: 1, windowEnds: now + this.opts.windowSeconds });
  }

  /** Drops expired entries; call now and then so that the table stays small. */
  sweep(now: number): void {
    for (const [k, e] of this.entries) if (e.windowEnds <= now) this.entries.delete(k);
  }

  get size(): number {
    return this.entries.size;
  }

  private live(address: string, now: number): Entry | undefined {
    const e = this.entries.get(address);
    if (e && e.windowEnds <= now) {
      this.entries.delete(address);
      return undefined;
    }
    return e;
  }
}
