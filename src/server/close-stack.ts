/**
 * What a start-up has opened, kept so that it can be closed again: each step that opens something
 * (the store, the cluster, a listener, a timer) pushes its closer. A start that fails part-way
 * closes what its earlier steps opened, last first; the shutdown closes the same stack.
 */
import type { Logger } from 'pino';

export type Closer = () => void | Promise<void>;

/** Closers that close together (at once, awaited together) at the place of the stack the group took. */
export interface CloserGroup {
  add(name: string, close: Closer): void;
}

interface Entry {
  name: string;
  closers: { name: string; close: Closer }[];
}

export class CloseStack {
  private entries: Entry[] = [];

  /** Closes `close` before everything pushed earlier and after everything pushed later. */
  push(name: string, close: Closer): void {
    this.entries.push({ name, closers: [{ name, close }] });
  }

  /**
   * Takes a place in the stack now for closers that are added to it later, while other entries
   * may be pushed in between: they close together when the stack comes down to this place.
   */
  group(name: string): CloserGroup {
    const entry: Entry = { name, closers: [] };
    this.entries.push(entry);
    return { add: (closerName, close) => entry.closers.push({ name: closerName, close }) };
  }

  /**
   * Closes every entry, the last pushed first, each once the one before has finished. A closer
   * that fails does not keep the others from closing: the first failure is thrown at the end.
   * The stack is empty afterwards.
   */
  async close(onFailure?: (name: string, err: unknown) => void): Promise<void> {
    const entries = this.entries.reverse();
    this.entries = [];
    const failures: unknown[] = [];
    for (const entry of entries) {
      const results = await Promise.allSettled(entry.closers.map(async (c) => c.close()));
      results.forEach((r, k) => {
        if (r.status === 'fulfilled') return;
        failures.push(r.reason);
        onFailure?.(entry.closers[k]!.name, r.reason);
      });
    }
    if (failures.length > 0) throw failures[0];
  }

  /**
   * A start that failed with `err`: closes what was opened before, logs a closer that fails (the
   * start's own error is the one the caller hears of), and throws `err`.
   */
  async abandon(err: unknown, log: Logger): Promise<never> {
    await this.close((name, failure) => log.warn({ err: failure }, `closing ${name} after a failed start failed`)).catch(() => undefined);
    throw err;
  }
}
