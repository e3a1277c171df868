/**
 * The one brute-force guard of every secret check (pure: the caller passes the clock in ms).
 *
 * An attempt is counted before its secret is checked, in three token buckets:
 * - the pair (source address, account): one client guessing one account;
 * - the address: one client guessing any accounts;
 * - the account (a user name, or a vehicle for car-password checks): guesses from all addresses.
 * Each bucket holds `burst` attempts and refills `perMinute` attempts a minute. An attempt that
 * finds a bucket empty is refused at once (no delay that would hold a connection), with the seconds
 * until it would be admitted; only when the bucket is held by attempts still being checked does
 * it wait for them (`pending`), as they give their attempt back if right. A successful check
 * gives its attempt back, so honest clients never use up a budget, and makes the pair trusted for
 * `trustDays`: a trusted pair skips the address and account buckets (only its own pair bucket
 * applies), so an attacker elsewhere, or one behind the same carrier NAT, who exhausts those
 * buckets does not lock out a client that has logged in before and has not failed itself.
 */
export interface BucketRule {
  /** Attempts a fresh key may make at once; 0 turns the bucket off. */
  burst: number;
  /** Attempts added back per minute, up to `burst`. */
  perMinute: number;
}

export interface LoginLimits {
  pair: BucketRule;
  address: BucketRule;
  account: BucketRule;
  /** Days a successful (address, account) pair stays trusted. */
  trustDays: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  pair: { burst: 10, perMinute: 2 },
  // generous: many modules may share one carrier NAT address
  address: { burst: 100, perMinute: 30 },
  account: { burst: 30, perMinute: 10 },
  trustDays: 30,
};

/** The default limits with the given rules in place of theirs. */
export function loginLimits(given: Partial<LoginLimits> = {}): LoginLimits {
  return { ...DEFAULT_LOGIN_LIMITS, ...given };
}

/** Trusted addresses remembered per account (the most recent ones win). */
const TRUSTED_PER_ACCOUNT = 16;

interface Bucket {
  level: number;
  updated: number;
}

/** What an admitted attempt took; give it back with `succeeded` when the secret was right. */
export interface Ticket {
  readonly pair: string;
  readonly address: string;
  readonly account: string;
  readonly trusted: boolean;
}

export type Admission =
  | { admitted: true; ticket: Ticket }
  | {
      admitted: false;
      retryAfterSeconds: number;
      limit: keyof Omit<LoginLimits, 'trustDays'>;
      /**
       * True when only attempts still being checked hold the budget: if they prove right, they
       * give it back, so the caller should wait for them to settle and ask again rather than
       * refuse (many honest clients behind one address may log in at once).
       */
      pending: boolean;
    };

class Buckets {
  private readonly map = new Map<string, Bucket>();
  /** Attempts taken and not settled yet, per key. */
  private readonly pending = new Map<string, number>();

  constructor(private readonly rule: BucketRule) {}

  get enabled(): boolean {
    return this.rule.burst > 0;
  }

  /** The bucket of `key` refilled to `now` (not stored when untouched and full). */
  private current(key: string, now: number): Bucket {
    const b = this.map.get(key);
    if (!b) return { level: this.rule.burst, updated: now };
    const refill = ((now - b.updated) / 60_000) * this.rule.perMinute;
    return { level: Math.min(this.rule.burst, b.level + Math.max(0, refill)), updated: now };
  }

  /** Seconds until `key` may take an attempt; 0 when it may now. */
  wait(key: string, now: number): number {
    if (!this.enabled) return 0;
    const b = this.current(key, now);
    if (b.level >= 1) return 0;
    return this.rule.perMinute > 0 ? Math.ceil(((1 - b.level) / this.rule.perMinute) * 60) : Number.POSITIVE_INFINITY;
  }

  /** Whether `key` would have an attempt if those being checked proved right. */
  heldByPending(key: string, now: number): boolean {
    return this.current(key, now).level + (this.pending.get(key) ?? 0) >= 1;
  }

  take(key: string, now: number): void {
    if (!this.enabled) return;
    const b = this.current(key, now);
    b.level -= 1;
    this.map.set(key, b);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  /**
   * Takes an attempt that was checked elsewhere (another node). The level may go below zero by the
   * attempts being checked here: each of them holds a unit it gives back if its secret is right,
   * and the failure counted elsewhere must stay counted when it does.
   */
  charge(key: string, now: number): void {
    if (!this.enabled) return;
    const b = this.current(key, now);
    b.level = Math.max(-(this.pending.get(key) ?? 0), b.level - 1);
    this.map.set(key, b);
  }

  /** The check of an attempt taken from `key` ended (right or wrong). */
  settle(key: string): void {
    if (!this.enabled) return;
    const n = (this.pending.get(key) ?? 0) - 1;
    if (n > 0) this.pending.set(key, n);
    else this.pending.delete(key);
  }

  give(key: string, now: number): void {
    if (!this.enabled) return;
    this.settle(key);
    const b = this.current(key, now);
    b.level = Math.min(this.rule.burst, b.level + 1);
    if (b.level >= this.rule.burst) this.map.delete(key);
    else this.map.set(key, b);
  }

  /** Forgets buckets that have refilled completely. */
  sweep(now: number): void {
    for (const key of this.map.keys()) {
      if (!this.pending.has(key) && this.current(key, now).level >= this.rule.burst) this.map.delete(key);
    }
  }

  get size(): number {
    return this.map.size;
  }
}

export class LoginThrottle {
  private readonly pairs: Buckets;
  private readonly addresses: Buckets;
  private readonly accounts: Buckets;
  /** account → (address → trusted until, ms), most recent last. */
  private readonly trust = new Map<string, Map<string, number>>();

  constructor(readonly limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.pairs = new Buckets(limits.pair);
    this.addresses = new Buckets(limits.address);
    this.accounts = new Buckets(limits.account);
  }

  /**
   * Counts an attempt of `address` at `account` (before its check), or refuses it. `pairOnly`: only
   * the pair's bucket applies, as for a trusted pair (an account that others' failures must not
   * lock, e.g. the metrics token of a scraper).
   */
  admit(address: string, account: string, now: number, pairOnly = false): Admission {
    const pair = `${address}\u0000${account}`;
    const trusted = pairOnly || this.trusted(address, account, now);
    const waits: (Admission & { admitted: false })[] = [];
    const consider = (limit: 'pair' | 'address' | 'account', buckets: Buckets, key: string) => {
      const seconds = buckets.wait(key, now);
      if (seconds > 0) waits.push({ admitted: false, retryAfterSeconds: seconds, limit, pending: buckets.heldByPending(key, now) });
    };
    consider('pair', this.pairs, pair);
    if (!trusted) {
      consider('address', this.addresses, address);
      consider('account', this.accounts, account);
    }
    if (waits.length > 0) {
      const longest = waits.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
      return { ...longest, pending: waits.every((w) => w.pending) };
    }
    this.pairs.take(pair, now);
    if (!trusted) {
      this.addresses.take(address, now);
      this.accounts.take(account, now);
    }
    return { admitted: true, ticket: { pair, address, account, trusted } };
  }

  /** The secret was right: the attempt is given back and the pair becomes trusted. */
  succeeded(ticket: Ticket, now: number): void {
    this.cancel(ticket, now);
    this.trustPair(ticket.address, ticket.account, now);
  }

  /** Trusts the pair for `trustDays` (a right secret here, or on another node). */
  trustPair(address: string, account: string, now: number): void {
    let known = this.trust.get(account);
    if (!known) this.trust.set(account, (known = new Map()));
    known.delete(address);
    known.set(address, now + this.limits.trustDays * 86_400_000);
    if (known.size > TRUSTED_PER_ACCOUNT) known.delete(known.keys().next().value as string);
  }

  /**
   * A wrong secret that another node checked: its attempt counts here too, so that the nodes of a
   * cluster share one budget (each node counts every failure of the cluster; right secrets give
   * their attempt back, so they need not travel).
   */
  charge(address: string, account: string, trusted: boolean, now: number): void {
    this.pairs.charge(`${address}\u0000${account}`, now);
    if (!trusted) {
      this.addresses.charge(address, now);
      this.accounts.charge(account, now);
    }
  }

  /** Whether the pair is trusted now. */
  isTrusted(address: string, account: string, now: number): boolean {
    return this.trusted(address, account, now);
  }

  /** The secret was wrong: the attempt stays counted. */
  failed(ticket: Ticket): void {
    this.pairs.settle(ticket.pair);
    if (!ticket.trusted) {
      this.addresses.settle(ticket.address);
      this.accounts.settle(ticket.account);
    }
  }

  /** The attempt was not checked after all (the server was busy): it is given back. */
  cancel(ticket: Ticket, now: number): void {
    this.pairs.give(ticket.pair, now);
    if (!ticket.trusted) {
      this.addresses.give(ticket.address, now);
      this.accounts.give(ticket.account, now);
    }
  }

  /** Ends the trust of an account's addresses (after its password changed). */
  forget(account: string): void {
    this.trust.delete(account);
  }

  /** Drops full buckets and expired trust; call now and then so that the tables stay small. */
  sweep(now: number): void {
    this.pairs.sweep(now);
    this.addresses.sweep(now);
    this.accounts.sweep(now);
    for (const [account, known] of this.trust) {
      for (const [address, until] of known) if (until <= now) known.delete(address);
      if (known.size === 0) this.trust.delete(account);
    }
  }

  /** Entries held (buckets and trusted pairs), for tests and metrics. */
  get size(): number {
    let trusted = 0;
    for (const known of this.trust.values()) trusted += known.size;
    return this.pairs.size + this.addresses.size + this.accounts.size + trusted;
  }

  private trusted(address: string, account: string, now: number): boolean {
    const until = this.trust.get(account)?.get(address);
    return until !== undefined && until > now;
  }
}
