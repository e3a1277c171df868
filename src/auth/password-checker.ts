/**
 * Every account-password check of vts goes through here: a bounded queue of scrypt checks
 * (src/auth/check-queue.ts), and a cache of the (user name, password) pairs that passed, so that
 * a client polling with its password is not slowed down by a 50 ms key derivation on every
 * request. Cache entries are keyed by an HMAC of the pair under a per-process random key (no
 * password is kept in memory), and each one remembers the password hash it was checked against:
 * when the password changes, the stored hash changes and the entry no longer matches, so the
 * change takes effect at once.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { CheckQueue } from './check-queue.js';
import { hashPassword, verifyPassword } from './password.js';

interface Entry {
  ownerId: number;
  passwordHash: string;
  expires: number;
}

export interface PasswordCheckerOptions {
  /** scrypt checks that may run at once (default: the CPUs, at most 4: libuv's default pool). */
  concurrency: number;
  /** Checks that may wait for a slot; beyond, a check is refused as busy. */
  maxWaiting: number;
  maxEntries: number;
  ttlMs: number;
}

export const defaultCheckConcurrency = (): number => Math.max(1, Math.min(4, availableParallelism()));

export class PasswordChecker {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, Entry>();
  readonly queue: CheckQueue;
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private dummy: Promise<string> | undefined;

  constructor(opts: Partial<PasswordCheckerOptions> = {}) {
    this.queue = new CheckQueue(opts.concurrency ?? defaultCheckConcurrency(), opts.maxWaiting ?? 1000);
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.ttlMs = opts.ttlMs ?? 15 * 60_000;
  }

  /**
   * True when `password` is the one `passwordHash` was made from: from the cache when this exact
   * pair passed before against this hash, else by scrypt in the queue. Throws `ChecksBusy` when
   * the queue is full.
   */
  async verify(username: string, password: string, ownerId: number, passwordHash: string, now: number): Promise<boolean> {
    if (this.cached(username, password, ownerId, passwordHash, now)) return true;
    if (!(await this.queue.run(() => verifyPassword(password, passwordHash)))) return false;
    this.remember(username, password, ownerId, passwordHash, now);
    return true;
  }

  /** A check against a hash of nobody (for an unknown user): same cost, so no user enumeration. */
  async verifyNobody(password: string): Promise<false> {
    this.dummy ??= hashPassword('not the password of anyone');
    const hash = await this.dummy;
    await this.queue.run(() => verifyPassword(password, hash));
    return false;
  }

  private id(username: string, password: string): string {
    return createHmac('sha256', this.key).update(username.toLowerCase()).update('\0').update(password).digest('base64');
  }

  private cached(username: string, password: string, ownerId: number, passwordHash: string, now: number): boolean {
    const k = this.id(username, password);
    const e = this.entries.get(k);
    if (!e) return false;
    if (e.expires <= now || e.ownerId !== ownerId || e.passwordHash !== passwordHash) {
      this.entries.delete(k);
      return false;
    }
    return true;
  }

  private remember(username: string, password: string, ownerId: number, passwordHash: string, now: number): void {
    if (this.entries.size >= this.maxEntries) {
      // drop the oldest entry (Map keeps insertion order)
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(this.id(username, password), { ownerId, passwordHash, expires: now + this.ttlMs });
  }

  /** Forgets every remembered pair (e.g. after `vts user passwd` in this process). */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
