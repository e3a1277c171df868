/**
 * Rows the hot read paths ask for again and again (the vehicle and its stored car messages, on
 * every `/api/status` poll and every MP login), kept in memory by key. The store forgets a key
 * when it writes that vehicle itself, and everything when another process has committed to the
 * database (SQLite's `PRAGMA data_version`), so `vts vehicle remove` from the CLI takes effect at
 * once. Bounded: past `max` keys the oldest goes.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max = 50_000) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): V {
    if (this.entries.size >= this.max && !this.entries.has(key)) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
