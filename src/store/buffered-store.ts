/**
 * What both stores do the same way: the hot-path writes through the write-behind buffer
 * (src/store/write-behind.ts), the writes ordered with them (a paranoid-token change, removing a
 * vehicle), waiting for buffered writes before a read, and the lifecycle (flush, close, "closed").
 * A store supplies how a batch is committed and how its connection is released.
 */
import { VtsError } from '../errors.js';
import type { CarMessage, CommitCallback, HistoricalRecord, StoreOptions, UtilisationDelta } from './store.js';
import { WriteBehindBuffer, type WriteBatch } from './write-behind.js';

const RESOLVED: Promise<void> = Promise.resolve();

export abstract class BufferedStore {
  protected readonly buffer: WriteBehindBuffer;
  protected closed = false;

  /** `retryable`: whether a failed commit may succeed when tried again (a busy database, a lost connection). */
  constructor(opts: StoreOptions, retryable: (err: unknown) => boolean) {
    this.buffer = new WriteBehindBuffer((batch) => this.commitBatch(batch), {
      delayMs: opts.writeBehindMs ?? 100,
      onBackgroundError: opts.onBackgroundError,
      onCommit: opts.onCommit,
      onResumed: opts.onResumed,
      maxHeldWrites: opts.maxHeldWrites,
      retryable,
    });
  }

  /** Writes one batch in one transaction (see WriteBatch for the order); throws or rejects when nothing was committed. */
  protected abstract commitBatch(batch: WriteBatch): void | Promise<void>;

  /** Closes the connection(s), once everything is flushed. */
  protected abstract release(): void | Promise<void>;

  protected open(): void {
    if (this.closed) throw new VtsError('VTS_ERR_STORE_CLOSED');
  }

  /**
   * Whether a read of the vehicle may be answered at once from memory (the `peek…` methods): the
   * store is open and nothing of the vehicle waits to be committed (else the read must wait).
   */
  protected peekable(vid: string): boolean {
    return !this.closed && !this.buffer.holdsVehicle(vid);
  }

  /** Waits for `pending` (the commit of buffered writes a read must see) when there is one. */
  protected async after(pending: Promise<void> | null): Promise<void> {
    if (pending) {
      await pending;
      this.open();
    }
  }

  /**
   * Commits everything buffered before a read of tables the buffer writes to (refused with
   * VTS_ERR_STORE_UNAVAILABLE while the database is away).
   */
  protected async flushed(): Promise<void> {
    this.open();
    await this.after(this.buffer.committed());
  }

  /**
   * Through the write-behind buffer: its buffered writes are forgotten, and the batch in flight
   * commits before the removal, so nothing of the vehicle outlives it or lands on a vehicle
   * re-added later. Its rows go by ON DELETE CASCADE.
   */
  async removeVehicle(id: string): Promise<boolean> {
    this.open();
    return this.buffer.removeVehicle(id.toUpperCase());
  }

  /** Through the write-behind buffer, in order with the car messages. */
  async setParanoidToken(vehicleId: string, token: string): Promise<void> {
    this.open();
    await this.buffer.setParanoidToken(vehicleId.toUpperCase(), token);
  }

  putCarMessage(vehicleId: string, msg: Omit<CarMessage, 'valid'>, historyExpires?: number): void {
    this.open();
    this.buffer.putCarMessage(vehicleId.toUpperCase(), msg, historyExpires);
  }

  /** Not `async`: on the hot path (every car message is history by default), one promise less. */
  addHistorical(rec: HistoricalRecord, durable = false): Promise<void> {
    if (this.closed) return Promise.reject(new VtsError('VTS_ERR_STORE_CLOSED'));
    const vid = rec.vehicleId.toUpperCase();
    if (durable) return this.buffer.addHistoricalDurable(rec, vid);
    this.buffer.addHistorical(rec, vid);
    return RESOLVED;
  }

  addUtilisation(deltas: readonly UtilisationDelta[]): void {
    this.open();
    this.buffer.addUtilisation(deltas.map((d) => ({ ...d, vehicleId: d.vehicleId.toUpperCase() })));
  }

  touchApiToken(ownerId: number, tokenHash: string, time: number): void {
    this.open();
    this.buffer.touchApiToken(ownerId, tokenHash, time);
  }

  afterCommit(fn: () => void, vehicleId?: string): void {
    // also once closed: nothing is buffered then, and fn runs at once
    this.buffer.afterCommit(fn, vehicleId?.toUpperCase());
  }

  afterLaterCommitOf(entry: CommitCallback): number | null {
    return this.buffer.afterCommitOf(entry, false);
  }

  nextCommit(): number {
    return this.buffer.nextBatch();
  }

  congested(): boolean {
    return this.buffer.congested;
  }

  commits(): number {
    return this.buffer.commits;
  }

  async flush(): Promise<void> {
    this.open();
    await this.buffer.flush();
  }

  /** Flushes and closes; every later call (close too) throws VTS_ERR_STORE_CLOSED. */
  async close(): Promise<void> {
    this.open();
    this.closed = true;
    // a batch held while the database is away is given up now (reported) rather than awaited forever
    this.buffer.close();
    try {
      await this.buffer.flush();
    } finally {
      await this.release();
    }
  }
}
