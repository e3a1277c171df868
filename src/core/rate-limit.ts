/**
 * The HTTP rate limiter of the reference server (docs/protocol/http-api-v2.md §1.1), per client address:
 * a new address starts with `burst` requests (the first is not charged), each later request costs
 * one, every minute adds `perMinute` up to `max`, and an address is forgotten `expireSeconds`
 * after its last request. Pure: the caller passes the clock and runs `tick` once a minute.
 */
export interface RateLimitOptions {
  /** Quota of a new address; 0 turns the limiter off. REF: 120. */
  burst: number;
  /** Quota added per minute. REF: 60. */
  perMinute: number;
  /** Quota ceiling. REF: 240. */
  max: number;
  /** Seconds an idle address is remembered. REF: 300. */
  expireSeconds: number;
  /** Seconds a refused request is held before its 429. REF: 20. */
  delaySeconds: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = {
  burst: 120,
  perMinute: 60,
  max: 240,
  expireSeconds: 300,
  delaySeconds: 20,
};

interface Entry {
  quota: number;
  expires: number;
}

export class RateLimiter {
  private readonly entries = new Map<string, Entry>();
  /** Requests counted here since the last `drainCounted` (when shared with other nodes). */
  private counted: Map<string, number> | null = null;

  constructor(readonly options: RateLimitOptions = DEFAULT_RATE_LIMIT) {}

  get enabled(): boolean {
    return this.options.burst > 0;
  }

  /** Counts a request; false when the address is over its quota (refuse with 429). */
  hit(address: string, now: number): boolean {
    if (!this.enabled) return true;
    if (this.counted) this.counted.set(address, (this.counted.get(address) ?? 0) + 1);
    const expires = now + this.options.expireSeconds;
    const e = this.entries.get(address);
    if (!e) {
      this.entries.set(address, { quota: this.options.burst, expires });
      return true;
    }
    e.quota = Math.max(0, e.quota - 1);
    e.expires = expires;
    return e.quota > 0;
  }

  /**
   * Requests another node of a cluster counted for the address since it last said (each node
   * counts every request of the cluster, so that the quota is the cluster's).
   */
  charge(address: string, requests: number, now: number): void {
    if (!this.enabled || requests <= 0) return;
    const expires = now + this.options.expireSeconds;
    const e = this.entries.get(address);
    if (!e) this.entries.set(address, { quota: Math.max(0, this.options.burst - requests), expires });
    else {
      e.quota = Math.max(0, e.quota - requests);
      e.expires = Math.max(e.expires, expires);
    }
  }

  /** From now on, remembers the requests counted here for `drainCounted` (a cluster shares them). */
  shareCounts(): void {
    this.counted ??= new Map();
  }

  /** The requests counted here per address since the last call. */
  drainCounted(): [string, number][] {
    if (!this.counted || this.counted.size === 0) return [];
    const out = [...this.counted];
    this.counted.clear();
    return out;
  }

  /** The once-a-minute step: forget expired addresses, refill the others. */
  tick(now: number): void {
    for (const [address, e] of this.entries) {
      if (e.expires <= now) this.entries.delete(address);
      else e.quota = Math.min(e.quota + this.options.perMinute, this.options.max);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
