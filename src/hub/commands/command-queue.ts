/**
 * The FIFO of commands waiting for `c` responses from one car connection (docs/protocol/mp.md §11).
 * A command that stops waiting (it timed out) is replaced by a placeholder (null) so that the
 * answer meant for it is consumed and dropped instead of reaching the next command.
 */
import type { CommandWaiter } from './command-waiter.js';

export class CommandQueue {
  private entries: (CommandWaiter | null)[] = [];

  get length(): number {
    return this.entries.length;
  }

  push(waiter: CommandWaiter): void {
    this.entries.push(waiter);
  }

  /** The command the next response belongs to; `complete` removes it from the queue. */
  take(complete: boolean): CommandWaiter | null | undefined {
    if (this.entries.length === 0) return undefined;
    return complete ? this.entries.shift() : this.entries[0];
  }

  /** Empties the queue (the car left): the commands that were waiting, placeholders left out. */
  drain(): CommandWaiter[] {
    const waiting = this.entries.filter((w): w is CommandWaiter => w !== null);
    this.entries = [];
    return waiting;
  }

  /** Replaces every entry of `waiter` with a placeholder. */
  forget(waiter: CommandWaiter): void {
    for (let k = 0; k < this.entries.length; k++) if (this.entries[k] === waiter) this.entries[k] = null;
  }
}
