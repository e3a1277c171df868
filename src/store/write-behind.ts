/**
 * A database-independent write-behind buffer for the hot-path writes of a Store: latest car
 * messages, historical records, traffic counters and API-token "last used" times.
 *
 * Writes are coalesced in memory (the latest message per vehicle and code, the latest version of a
 * historical record, summed traffic deltas, the latest token use) and handed to the database's
 * `commit` function as one batch, at most `delayMs` after the first pending write. A durable
 * historical write instead schedules the commit on `setImmediate`, so all durable writes of one
 * event-loop turn share one transaction (group commit), and its promise settles with that commit.
 *
 * Batches are committed one at a time, in order. The batch being committed (when `commit` is
 * asynchronous) and the pending one both stay visible to the overlay readers, so a store can offer
 * read-your-writes without waiting for the database.
 */
import type { CarMessage, HistoricalRecord, UtilisationDelta } from './store.js';

export interface PendingCarMessage extends CarMessage {
  vehicleId: string;
}

export interface PendingTokenTouch {
  ownerId: number;
  tokenHash: string;
  time: number;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** One set of coalesced writes, to be committed in one transaction. */
export class WriteBatch {
  /** vehicle id → message code → latest message. */
  readonly carMessages = new Map<string, Map<string, PendingCarMessage>>();
  /** vehicle id → time of its latest car message. */
  readonly lastUpdates = new Map<string, number>();
  /** Upserts, keyed by (vehicle, type, record number, time): the latest version wins. */
  readonly historical = new Map<string, HistoricalRecord>();
  /** Sums, keyed by (vehicle, day, client type). */
  readonly utilisation = new Map<string, UtilisationDelta>();
  /** Keyed by (owner, token hash): the latest use. */
  readonly tokenTouches = new Map<string, PendingTokenTouch>();
  /** Number of coalesced entries (what `maxPending` bounds). */
  size = 0;
  /** @internal durable writes waiting for this batch's commit */
  readonly waiters: Waiter[] = [];

  get empty(): boolean {
    return this.size === 0;
  }
}

/** Writes one batch in one transaction; throws (or rejects) when nothing was committed. */
export type CommitFn = (batch: WriteBatch) => void | Promise<void>;

export interface WriteBehindOptions {
  /** Maximum delay of a buffered write in milliseconds (default 100). */
  delayMs?: number;
  /** Commit early (on the next turn) once this many entries are pending (default 10000). */
  maxPending?: number;
  /** Errors of commits nobody awaits (default: console.error). Must not throw. */
  onBackgroundError?: (err: unknown) => void;
}

const SEP = '\u0000';

export class WriteBehindBuffer {
  private readonly commitFn: CommitFn;
  private readonly delayMs: number;
  private readonly maxPending: number;
  private readonly onBackgroundError: (err: unknown) => void;

  private pending = new WriteBatch();
  private inflight: WriteBatch | null = null;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  /** The tail of the serialised commits; never rejects. */
  private chain: Promise<void> = Promise.resolve();

  constructor(commit: CommitFn, opts: WriteBehindOptions = {}) {
    this.commitFn = commit;
    this.delayMs = Math.max(0, opts.delayMs ?? 100);
    this.maxPending = Math.max(1, opts.maxPending ?? 10_000);
    this.onBackgroundError = opts.onBackgroundError ?? ((err) => console.error('vts store: background commit failed:', err));
  }

  // --- writes ---

  putCarMessage(vehicleId: string, msg: Omit<CarMessage, 'valid'>): void {
    const batch = this.pending;
    let codes = batch.carMessages.get(vehicleId);
    if (!codes) {
      codes = new Map();
      batch.carMessages.set(vehicleId, codes);
    }
    if (!codes.has(msg.code)) batch.size++;
    codes.set(msg.code, {
      vehicleId,
      code: msg.code,
      data: msg.data,
      time: msg.time,
      paranoid: msg.paranoid,
      ptoken: msg.ptoken,
      valid: true,
    });
    batch.lastUpdates.set(vehicleId, msg.time);
    this.scheduled();
  }

  addHistorical(rec: HistoricalRecord): void {
    this.putHistorical(rec);
    this.scheduled();
  }

  /** Adds the record and resolves once the batch holding it is committed (rejects if that fails). */
  addHistoricalDurable(rec: HistoricalRecord): Promise<void> {
    this.putHistorical(rec);
    const batch = this.pending;
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    this.scheduleSoon();
    return done;
  }

  addUtilisation(deltas: readonly UtilisationDelta[]): void {
    const batch = this.pending;
    let added = false;
    for (const d of deltas) {
      if (d.rx === 0 && d.tx === 0) continue;
      const key = d.vehicleId + SEP + d.day + SEP + d.clientType;
      const sum = batch.utilisation.get(key);
      if (sum) {
        sum.rx += d.rx;
        sum.tx += d.tx;
      } else {
        batch.utilisation.set(key, { vehicleId: d.vehicleId, day: d.day, clientType: d.clientType, rx: d.rx, tx: d.tx });
        batch.size++;
      }
      added = true;
    }
    if (added) this.scheduled();
  }

  touchApiToken(ownerId: number, tokenHash: string, time: number): void {
    const batch = this.pending;
    const key = ownerId + SEP + tokenHash;
    const prev = batch.tokenTouches.get(key);
    if (prev) {
      prev.time = Math.max(prev.time, time);
    } else {
      batch.tokenTouches.set(key, { ownerId, tokenHash, time });
      batch.size++;
    }
    this.scheduled();
  }

  // --- overlays for read-your-writes (the batch in flight, then the pending one) ---

  /** Buffered messages of a vehicle by code (the latest of each). */
  carMessages(vehicleId: string): Map<string, PendingCarMessage> {
    const out = new Map<string, PendingCarMessage>();
    for (const batch of this.batches()) {
      const codes = batch.carMessages.get(vehicleId);
      if (codes) for (const [code, m] of codes) out.set(code, m);
    }
    return out;
  }

  /** Buffered last-update time of a vehicle, if any. */
  lastUpdate(vehicleId: string): number | undefined {
    let t: number | undefined;
    for (const batch of this.batches()) t = batch.lastUpdates.get(vehicleId) ?? t;
    return t;
  }

  /** Buffered last use of a token, if any. */
  tokenLastUsed(ownerId: number, tokenHash: string): number | undefined {
    const key = ownerId + SEP + tokenHash;
    let t: number | undefined;
    for (const batch of this.batches()) {
      const touch = batch.tokenTouches.get(key);
      if (touch) t = Math.max(t ?? touch.time, touch.time);
    }
    return t;
  }

  // --- edits of buffered writes ---

  /**
   * Marks buffered paranoid messages of the vehicle whose token differs from `token` invalid.
   * With an asynchronous `commit`, call it only while nothing is in flight (await `idle()`), or
   * the batch being written may escape the change.
   */
  invalidateParanoid(vehicleId: string, token: string): void {
    for (const batch of this.batches()) {
      const codes = batch.carMessages.get(vehicleId);
      if (!codes) continue;
      for (const m of codes.values()) if (m.paranoid && m.ptoken !== token) m.valid = false;
    }
  }

  /** Forgets the pending writes of a vehicle (it is being removed). */
  discardVehicle(vehicleId: string): void {
    const batch = this.pending;
    const codes = batch.carMessages.get(vehicleId);
    if (codes) {
      batch.size -= codes.size;
      batch.carMessages.delete(vehicleId);
    }
    batch.lastUpdates.delete(vehicleId);
    for (const [key, rec] of batch.historical) {
      if (rec.vehicleId === vehicleId) {
        batch.historical.delete(key);
        batch.size--;
      }
    }
    for (const [key, d] of batch.utilisation) {
      if (d.vehicleId === vehicleId) {
        batch.utilisation.delete(key);
        batch.size--;
      }
    }
    this.unscheduleIfEmpty();
  }

  /** Forgets pending uses of one token, or of all tokens of the owner when tokenHash is omitted. */
  discardTokenTouches(ownerId: number, tokenHash?: string): void {
    const batch = this.pending;
    for (const [key, t] of batch.tokenTouches) {
      if (t.ownerId === ownerId && (tokenHash === undefined || t.tokenHash === tokenHash)) {
        batch.tokenTouches.delete(key);
        batch.size--;
      }
    }
    this.unscheduleIfEmpty();
  }

  // --- commits ---

  /** True when nothing is pending nor being committed. */
  get isEmpty(): boolean {
    return this.pending.empty && this.inflight === null;
  }

  /** Resolves when the batch in flight (if any) is done; does not commit the pending one. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Commits everything pending now (after the batch in flight, if any). Rejects if that fails. */
  flush(): Promise<void> {
    const run = this.chain.then(() => this.commitPending());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private putHistorical(rec: HistoricalRecord): void {
    const batch = this.pending;
    const key = rec.vehicleId + SEP + rec.type + SEP + rec.recordNumber + SEP + rec.time;
    if (!batch.historical.has(key)) batch.size++;
    batch.historical.set(key, {
      vehicleId: rec.vehicleId,
      type: rec.type,
      recordNumber: rec.recordNumber,
      time: rec.time,
      data: rec.data,
      expires: rec.expires,
    });
  }

  private *batches(): Generator<WriteBatch> {
    if (this.inflight) yield this.inflight;
    yield this.pending;
  }

  /** A write was buffered: make sure a commit is due in at most delayMs. */
  private scheduled(): void {
    if (this.pending.size >= this.maxPending) {
      this.scheduleSoon();
    } else if (this.timer === null && this.immediate === null) {
      this.timer = setTimeout(this.background, this.delayMs);
    }
  }

  /** Nothing left to commit (after discards): drop the timers, which would keep the process alive. */
  private unscheduleIfEmpty(): void {
    if (this.pending.empty && this.pending.waiters.length === 0) this.clearSchedule();
  }

  private clearSchedule(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.immediate !== null) {
      clearImmediate(this.immediate);
      this.immediate = null;
    }
  }

  private scheduleSoon(): void {
    if (this.immediate === null) this.immediate = setImmediate(this.background);
  }

  private readonly background = (): void => {
    this.flush().catch((err: unknown) => this.report(err));
  };

  private report(err: unknown): void {
    try {
      this.onBackgroundError(err);
    } catch {
      // an error reporter that throws must not take the process down
    }
  }

  private async commitPending(): Promise<void> {
    this.clearSchedule();
    const batch = this.pending;
    if (batch.empty && batch.waiters.length === 0) return;
    this.pending = new WriteBatch();
    this.inflight = batch;
    try {
      await this.commitFn(batch);
    } catch (err) {
      for (const w of batch.waiters) w.reject(err);
      throw err;
    } finally {
      this.inflight = null;
    }
    for (const w of batch.waiters) w.resolve();
  }
}
