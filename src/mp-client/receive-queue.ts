/**
 * An unbounded FIFO of received items with promise-based consumers (`next`, `waitFor`, `collect`,
 * async iteration). Items that arrive before anyone asks are buffered without limit: this is a test
 * and tooling client, not a long-running consumer; call `drain()` if you only use events.
 */
import { MpClientError } from './errors.js';

interface Waiter<T> {
  resolve(item: T): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | undefined;
}

export class ReceiveQueue<T> {
  private readonly items: T[] = [];
  private readonly waiters: Waiter<T>[] = [];
  private endReason: string | null = null;
  private readonly endListeners: (() => void)[] = [];

  constructor(private readonly describe: (item: T) => string = String) {}

  /** Number of buffered items not yet consumed. */
  get size(): number {
    return this.items.length;
  }

  /** True once `end()` was called (buffered items may still be left). */
  get ended(): boolean {
    return this.endReason !== null;
  }

  push(item: T): void {
    const w = this.waiters.shift();
    if (w) {
      if (w.timer) clearTimeout(w.timer);
      w.resolve(item);
    } else {
      this.items.push(item);
    }
  }

  /** No more items will arrive: pending consumers are rejected with MP_CLOSED. */
  end(reason: string): void {
    if (this.endReason !== null) return;
    this.endReason = reason;
    for (const w of this.waiters.splice(0)) {
      if (w.timer) clearTimeout(w.timer);
      w.reject(new MpClientError('MP_CLOSED', reason));
    }
    for (const l of this.endListeners.splice(0)) l();
  }

  /**
   * The next item: at once when one is buffered, else the next to arrive. Rejects with MP_TIMEOUT
   * after `timeoutMs` (`Infinity`: wait forever) and with MP_CLOSED when the queue has ended.
   */
  next(timeoutMs: number): Promise<T> {
    if (this.items.length > 0) return Promise.resolve(this.items.shift()!);
    if (this.endReason !== null) return Promise.reject(new MpClientError('MP_CLOSED', this.endReason));
    return new Promise<T>((resolve, reject) => {
      const w: Waiter<T> = { resolve, reject, timer: undefined };
      if (Number.isFinite(timeoutMs)) {
        w.timer = setTimeout(() => {
          const at = this.waiters.indexOf(w);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(new MpClientError('MP_TIMEOUT', `nothing received within ${timeoutMs} ms`));
        }, Math.max(0, timeoutMs));
      }
      this.waiters.push(w);
    });
  }

  /**
   * The first item matching `predicate` within `timeoutMs`. Non-matching items are consumed and
   * discarded; the timeout error lists them to help debugging.
   */
  async waitFor(predicate: (item: T) => boolean, timeoutMs: number, what = 'matching item'): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    const skipped: string[] = [];
    for (;;) {
      let item: T;
      try {
        item = await this.next(Number.isFinite(timeoutMs) ? Math.max(0, deadline - Date.now()) : Infinity);
      } catch (err) {
        if (err instanceof MpClientError) {
          const tail = skipped.length > 0 ? ` (skipped: ${skipped.join(' | ')})` : ' (nothing else received)';
          const why = err.code === 'MP_TIMEOUT' ? `no ${what} within ${timeoutMs} ms` : `closed before a ${what}: ${this.endReason}`;
          throw new MpClientError(err.code, why + tail);
        }
        throw err;
      }
      if (predicate(item)) return item;
      skipped.push(this.describe(item));
    }
  }

  /**
   * Waits `ms` (less if the queue ends first), then returns and consumes everything buffered,
   * including items that were already waiting when `collect` was called.
   */
  async collect(ms: number): Promise<T[]> {
    if (this.endReason === null && ms > 0) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          const at = this.endListeners.indexOf(done);
          if (at >= 0) this.endListeners.splice(at, 1);
          resolve();
        };
        const timer = setTimeout(done, ms);
        this.endListeners.push(done);
      });
    }
    return this.drain();
  }

  /** Removes and returns every buffered item without waiting. */
  drain(): T[] {
    return this.items.splice(0);
  }

  /** Yields items until the queue has ended and is empty. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for (;;) {
      if (this.items.length === 0 && this.endReason !== null) return;
      try {
        yield await this.next(Infinity);
      } catch (err) {
        if (err instanceof MpClientError && err.code === 'MP_CLOSED') return;
        throw err;
      }
    }
  }
}
