/**
 * Remembers which (user name, password) pairs passed scrypt, so that a client polling with its
 * password is not slowed down by a 50 ms key derivation on every request. Entries are keyed by an
 * HMAC of the pair under a per-process random key (no password is kept in memory), and each one
 * remembers the password hash it was checked against: when the password changes, the stored hash
 * changes and the entry no longer matches, so the change takes effect at once.
 */
import { createHmac, randomBytes } from 'node:crypto';

interface Entry {
  ownerId: number;
  passwordHash: string;
  expires: number;
}

export class CredentialCache {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly ttlMs = 15 * 60_000,
  ) {}

  private id(username: string, password: string): string {
    return createHmac('sha256', this.key).update(username.toLowerCase()).update('\0').update(password).digest('base64');
  }

  /** True when this exact pair was verified against `passwordHash` (the owner's current hash). */
  has(username: string, password: string, ownerId: number, passwordHash: string, now: number): boolean {
    const k = this.id(username, password);
    const e = this.entries.get(k);
    if (!e) return false;
    if (e.expires <= now || e.ownerId !== ownerId || e.passwordHash !== passwordHash) {
      this.entries.delete(k);
      return false;
    }
    return true;
  }

  remember(username: string, password: string, ownerId: number, passwordHash: string, now: number): void {
    if (this.entries.size >= this.maxEntries) {
      // drop the oldest entry (Map keeps insertion order)
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(this.id(username, password), { ownerId, passwordHash, expires: now + this.ttlMs });
  }

  /** Forgets every entry of a user (e.g. after `vts user passwd` in this process). */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
