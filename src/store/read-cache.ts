/**
 * Rows the hot read paths ask for again and again (the vehicle and its stored car messages, on
 * every `/api/status` poll and every MP login), kept in memory by key. The store forgets a key
 * when it writes it, and everything when another process has committed to the database (SQLite's
 * `PRAGMA data_version`), so `vts vehicle remove` from the CLI takes effect at once. Bounded: past
 * `max` keys the oldest goes.
 *
 * A read that races with a write must not leave its row behind: take a `stamp()` before the
 * read and pass it to `set`, which keeps the row only when nothing was forgotten since (a
 * `delete` or `clear` in between means the row may be older than the write).
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, V>();
  /** Counts the deletes and clears: a stamp older than this may hold a stale row. */
  private generation = 0;

  constructor(private readonly max = 50_000) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Taken before a read whose row is to be cached. */
  stamp(): number {
    return this.generation;
  }

  /** Caches the row read since `stamp` (unless something was forgotten meanwhile); returns it. */
  set(key: string, value: V, stamp: number): V {
    if (stamp !== this.generation) return value;
    if (this.entries.size >= this.max && !this.entries.has(key)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
    return value;
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
