/**
 * The FIFO of clients waiting for `c` responses from one car connection (mp-protocol.md §11).
 * A client that leaves is replaced by a placeholder (null) so that the answer meant for it is
 * consumed and dropped instead of reaching the next client.
 */
import type { Peer } from '../links/peer.js';

export class CommandQueue {
  private entries: (Peer | null)[] = [];

  get length(): number {
    return this.entries.length;
  }

  push(peer: Peer): void {
    this.entries.push(peer);
  }

  /** The client the next response belongs to; `complete` removes it from the queue. */
  take(complete: boolean): Peer | null | undefined {
    if (this.entries.length === 0) return undefined;
    return complete ? this.entries.shift() : this.entries[0];
  }

  /** Empties the queue (the car left): the clients that were waiting, placeholders left out. */
  drain(): Peer[] {
    const waiting = this.entries.filter((p): p is Peer => p !== null);
    this.entries = [];
    return waiting;
  }

  /** Replaces every entry of `peer` with a placeholder. */
  forget(peer: Peer): void {
    for (let k = 0; k < this.entries.length; k++) if (this.entries[k] === peer) this.entries[k] = null;
  }
}
