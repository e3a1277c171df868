/**
 * One set of coalesced writes of the write-behind buffer (src/store/write-behind.ts), committed in
 * one transaction, and how to split it by vehicle when that transaction fails.
 *
 * A store commits a batch in this order, in one transaction: the removals, then the paranoid-token
 * changes, then the rows. Batches are committed one at a time, in order, so a removal or a token
 * change also covers the rows of the batch committed before it (the one in flight when it was
 * asked for), and nothing of a later batch.
 */
import type { CarMessage, HistoricalRecord, UtilisationDelta } from './store.js';

export interface PendingCarMessage extends CarMessage {
  vehicleId: string;
  /**
   * When > 0, the message is also its historical record (type = code, record number 0, same
   * time and data), expiring then.
   */
  historyExpires: number;
}

export interface PendingTokenTouch {
  ownerId: number;
  tokenHash: string;
  time: number;
}

/** A vehicle to remove; the commit says whether it was there. */
export interface PendingRemoval {
  removed: boolean;
}

export interface Waiter {
  /** The vehicle whose part of the batch the waiter waits for (when a failed batch is split). */
  vehicleId: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A callback waiting for a commit; with a vehicle: passes on something of that vehicle's stored data. */
export type Settled = (() => void) | { readonly vehicleId: string; readonly fn: () => void };

/** One set of coalesced writes, to be committed in one transaction. */
let batches = 0;

export class WriteBatch {
  /** This batch's number in the process (a later batch has a higher one). */
  readonly seq = ++batches;
  /** vehicle id → message code → latest message. */
  readonly carMessages = new Map<string, Map<string, PendingCarMessage>>();
  /** vehicle id → time of its latest car message. */
  readonly lastUpdates = new Map<string, number>();
  /**
   * Upserts, keyed by (vehicle, type, record number, time): the latest version wins. The
   * historical record of a car message stays with the message in `carMessages` while it is the
   * latest of its code; it moves here when a message of another second replaces it.
   */
  readonly historical = new Map<string, HistoricalRecord>();
  /** Sums, keyed by (vehicle, day, client type). */
  readonly utilisation = new Map<string, UtilisationDelta>();
  /** Keyed by (owner, token hash): the latest use. */
  readonly tokenTouches = new Map<string, PendingTokenTouch>();
  /**
   * vehicle id → the paranoid tokens it announced since the batch began, in order (no two equal
   * neighbours). Committed before the rows: the vehicle's token becomes the last one, and its
   * stored paranoid messages whose token differs from any of them become invalid. The batch's own
   * messages put before a change were marked invalid in memory when it was asked for.
   */
  readonly paranoidTokens = new Map<string, string[]>();
  /** Vehicles removed with all their rows, before anything else of the batch is written. */
  readonly removals = new Map<string, PendingRemoval>();
  /** Number of coalesced entries (what `maxPending` bounds). */
  size = 0;
  /** A durable write is in the batch: its commit must reach stable storage (survive a power loss). */
  durable = false;
  /** @internal durable writes, token changes and removals waiting for this batch's commit */
  readonly waiters: Waiter[] = [];
  /**
   * @internal run in order once this batch is committed (or lost for good: see WriteBehindBuffer);
   * an entry of a vehicle is skipped when that vehicle's part of the batch was lost
   */
  readonly settled: Settled[] = [];
  /** @internal how the reads waiting for this batch (resolved through `settled`) are refused while the database is away */
  readonly readers: ((err: unknown) => void)[] = [];
  /** Writes put into the batch (before coalescing) and the bytes of their data: what the hold bound counts. */
  writes = 0;
  bytes = 0;

  get empty(): boolean {
    return this.size === 0;
  }

  /** Whether anything of the vehicle that a read of it must wait for is in the batch. */
  holdsVehicle(vehicleId: string): boolean {
    return (
      this.lastUpdates.has(vehicleId) ||
      this.carMessages.has(vehicleId) ||
      this.paranoidTokens.has(vehicleId) ||
      this.removals.has(vehicleId)
    );
  }
}

/** The key of the part that holds the token uses (not a vehicle id: those have no NUL). */
export const TOKENS_PART = '\u0000tokens';

/**
 * The batch's writes in parts that can be committed alone: one per vehicle (its removal, token
 * changes, messages, last update, history and traffic), and one for the token uses (key
 * TOKENS_PART). Waiters and callbacks stay with the batch. When one vehicle's rows make a
 * transaction fail, the others' are still committed.
 */
export function splitByVehicle(batch: WriteBatch): Map<string, WriteBatch> {
  const parts = new Map<string, WriteBatch>();
  const part = (key: string): WriteBatch => {
    let p = parts.get(key);
    if (!p) {
      p = new WriteBatch();
      p.durable = batch.durable;
      parts.set(key, p);
    }
    return p;
  };
  for (const [vid, r] of batch.removals) part(vid).removals.set(vid, r);
  for (const [vid, tokens] of batch.paranoidTokens) part(vid).paranoidTokens.set(vid, tokens);
  for (const [vid, codes] of batch.carMessages) part(vid).carMessages.set(vid, codes);
  for (const [vid, time] of batch.lastUpdates) part(vid).lastUpdates.set(vid, time);
  for (const [key, rec] of batch.historical) part(rec.vehicleId).historical.set(key, rec);
  for (const [key, d] of batch.utilisation) part(d.vehicleId).utilisation.set(key, d);
  for (const [key, t] of batch.tokenTouches) part(TOKENS_PART).tokenTouches.set(key, t);
  for (const p of parts.values()) {
    let messages = 0;
    for (const codes of p.carMessages.values()) messages += codes.size;
    p.size = messages + p.historical.size + p.utilisation.size + p.tokenTouches.size + p.paranoidTokens.size + p.removals.size;
  }
  return parts;
}
