/**
 * The bound of the writes the write-behind buffer (src/store/write-behind.ts) holds: those
 * buffered, being committed, or held while the database is away. They are counted as they are
 * put (each write from outside, before coalescing) and in the bytes of their data; past either
 * bound the buffer is `congested`, and whoever feeds it stops reading its source until a commit
 * clears the bound.
 */
import type { WriteBatch } from './write-batch.js';

/** The default bound of held writes. */
export const DEFAULT_MAX_HELD_WRITES = 100_000;
/** The default bound of the bytes of their data (64 MiB). */
export const DEFAULT_MAX_HELD_BYTES = 64 * 1024 * 1024;

/** What a held write costs beyond its data (keys, object): counted against the bytes bound. */
const WRITE_OVERHEAD = 64;

/** Counts a write from outside (a car message, a historical record) with `dataLength` characters of data in the batch. */
export function countWrite(batch: WriteBatch, dataLength: number): void {
  batch.writes++;
  batch.bytes += dataLength + WRITE_OVERHEAD;
}

/** The bound in writes and in bytes, and whether the held writes reach it. */
export class HoldBound {
  readonly maxWrites: number;
  readonly maxBytes: number;

  constructor(maxWrites = DEFAULT_MAX_HELD_WRITES, maxBytes = DEFAULT_MAX_HELD_BYTES) {
    this.maxWrites = Math.max(1, maxWrites);
    this.maxBytes = Math.max(1, maxBytes);
  }

  /** Whether the writes of the pending batch and of the one in flight reach the bound. */
  reached(pending: WriteBatch, inflight: WriteBatch | null): boolean {
    const f = inflight;
    return (
      pending.writes + (f ? f.writes : 0) >= this.maxWrites || pending.bytes + (f ? f.bytes : 0) >= this.maxBytes
    );
  }
}
