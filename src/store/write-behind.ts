/**
 * A database-independent write-behind buffer for the hot-path writes of a Store: latest car
 * messages, historical records, traffic counters and API-token "last used" times.
 *
 * Writes are coalesced in memory (the latest message per vehicle and code, the latest version of a
 * historical record, summed traffic deltas, the latest token use) and handed to the database's
 * `commit` function as one batch, at most `delayMs` after the first pending write.
 *
 * What is buffered is never shown: "seen" implies "committed". Whoever is about to pass something
 * on (a read for a client, a message forwarded to an app, an ack) waits for the commit of what was
 * buffered before (`afterCommit`, `committed`, `committedFor`), and waiting moves that commit to
 * the end of the current event-loop turn (`setImmediate`): everything buffered and waited for in
 * one turn shares one transaction (group commit), and nothing waits longer than a turn plus the
 * commit. A durable historical write does the same, and its batch is marked `durable` (the store
 * commits it to stable storage, not only to the operating system).
 *
 * Batches are committed one at a time, in order; callbacks run in the order they were registered,
 * once the batch they wait for (and so every batch before it) has been committed.
 *
 * A database that does not answer (a retryable error past the first tries) holds the batch: it is
 * tried again, with growing pauses, until the database answers, and nothing that waits for it goes
 * on meanwhile (what a client sees is never lost). New writes keep being buffered behind it; the
 * writes held (buffered, not yet committed) are counted (`congested`: past the bound, whoever
 * feeds the buffer stops reading its source until `afterCommit` tells it the bound is cleared), and
 * reads that would wait for a held batch are refused at once (VTS_ERR_STORE_UNAVAILABLE). Only an
 * error that would fail the same way again, or closing the buffer, gives a batch up: its writes are
 * lost, reported, and the callbacks of those vehicles' data (`afterCommit` with a vehicle) are
 * skipped, so nothing of what was lost is passed on. Nothing here
 * assumes that `commit` is synchronous: the writes whose order matters against the hot path (a
 * paranoid-token change, removing a vehicle) are entries of the pending batch too, committed first
 * in its transaction, so they come after every write put before them (the batch in flight
 * included) and before every write put after them.
 *
 * This file holds the buffer: its public API, the scheduling of commits and the waiting for them.
 * How each write is coalesced into the pending batch is in src/store/coalesce.ts, the batch itself
 * in src/store/write-batch.ts, the hold bound (`congested`) in src/store/held-writes.ts, and the
 * commit of one batch with its tries, hold and resumption in src/store/commit-retry.ts.
 */
import { addUtilisation, discardTokenTouches, discardVehicle, putCarMessage, putHistorical, touchApiToken } from './coalesce.js';
import { CommitRetry, type CommitFn, type Failure } from './commit-retry.js';
import { HoldBound, countWrite } from './held-writes.js';
import type { CarMessage, HistoricalRecord, UtilisationDelta } from './store.js';

export {
  WriteBatch,
  splitByVehicle,
  type PendingCarMessage,
  type PendingRemoval,
  type PendingTokenTouch,
  type Settled,
} from './write-batch.js';
import { WriteBatch, type PendingRemoval, type Settled } from './write-batch.js';
export type { CommitFn } from './commit-retry.js';
export { DEFAULT_MAX_HELD_WRITES } from './held-writes.js';

export interface WriteBehindOptions {
  /** Maximum delay of a buffered write in milliseconds (default 100). */
  delayMs?: number;
  /** Commit early (on the next turn) once this many entries are pending (default 10000). */
  maxPending?: number;
  /** Errors of commits nobody awaits (default: console.error). Must not throw. */
  onBackgroundError?: (err: unknown) => void;
  /**
   * Milliseconds to wait before each new try of a failed commit (a busy, locked or full database):
   * default 50, 100, 200, 400, 800. When the last of these tries fails too (with a retryable
   * error), the database is away: the batch is held and tried again, each pause twice the one
   * before, at most `maxRetryDelayMs`, until it answers. What waits for the commit waits for it.
   */
  retryDelaysMs?: readonly number[];
  /** Longest pause between two tries of a held batch (default 5000 ms). */
  maxRetryDelayMs?: number;
  /** Whether a failed commit may succeed when tried again (default: always). */
  retryable?: (err: unknown) => boolean;
  /** The bound of held writes (buffered, not yet committed) past which `congested` is true (default 100000). */
  maxHeldWrites?: number;
  /** The same bound in bytes of their data (default 64 MiB). */
  maxHeldBytes?: number;
  /** Told once the database answers again after a batch was held: the seconds it was away. */
  onResumed?: (seconds: number) => void;
  /** Told of each committed batch: its entries and the seconds its commit took (for `/metrics`). */
  onCommit?: (entries: number, seconds: number) => void;
}

export class WriteBehindBuffer {
  private readonly delayMs: number;
  private readonly maxPending: number;
  private readonly onBackgroundError: (err: unknown) => void;
  private readonly bound: HoldBound;
  /** Commits a batch, with its tries and its hold while the database is away. */
  private readonly retry: CommitRetry;
  /** Batches committed so far (see `commits`). */
  private committedBatches = 0;

  private pending = new WriteBatch();
  private inflight: WriteBatch | null = null;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  /** The tail of the serialised commits; never rejects. */
  private chain: Promise<void> = Promise.resolve();

  constructor(commit: CommitFn, opts: WriteBehindOptions = {}) {
    this.delayMs = Math.max(0, opts.delayMs ?? 100);
    this.maxPending = Math.max(1, opts.maxPending ?? 10_000);
    this.onBackgroundError = opts.onBackgroundError ?? ((err) => console.error('vts store: background commit failed:', err));
    this.bound = new HoldBound(opts.maxHeldWrites, opts.maxHeldBytes);
    this.retry = new CommitRetry(commit, opts, (err) => this.report(err), (batch, err) => this.held(batch, err));
  }

  // --- the hold bound ---

  /**
   * True when the writes held (buffered, being committed, or held while the database is away)
   * reach the bound: whoever feeds the buffer should stop reading its source until `afterCommit`
   * calls back.
   */
  get congested(): boolean {
    return this.bound.reached(this.pending, this.inflight);
  }

  /** How many batches have been committed so far: a feeder counts its writes since the last it saw. */
  get commits(): number {
    return this.committedBatches;
  }

  /** Whether a batch is held because the database does not answer. */
  get holding(): boolean {
    return this.retry.holding;
  }

  // --- writes ---

  /**
   * The latest message of its code; with `historyExpires` > 0 also its historical record (type =
   * code, record number 0), kept with it: one map entry per message on the hot path.
   */
  putCarMessage(vehicleId: string, msg: Omit<CarMessage, 'valid'>, historyExpires = 0): void {
    putCarMessage(this.pending, vehicleId, msg, historyExpires);
    this.scheduled();
  }

  /** Adds the record (under `vehicleId` when given: the store's normalised id). */
  addHistorical(rec: HistoricalRecord, vehicleId = rec.vehicleId): void {
    countWrite(this.pending, rec.data.length);
    putHistorical(this.pending, rec, vehicleId);
    this.scheduled();
  }

  /**
   * Adds the record and resolves once the batch holding it is committed to stable storage
   * (rejects if that fails).
   */
  addHistoricalDurable(rec: HistoricalRecord, vehicleId = rec.vehicleId): Promise<void> {
    countWrite(this.pending, rec.data.length);
    putHistorical(this.pending, rec, vehicleId);
    return this.durableCommit(vehicleId);
  }

  /**
   * Records the vehicle's new paranoid token: its paranoid messages put before this call with
   * another token (buffered, being committed or stored) become invalid, those put after it are
   * not touched. Resolves once committed to stable storage.
   */
  setParanoidToken(vehicleId: string, token: string): Promise<void> {
    const batch = this.pending;
    // the batch's own messages now; the stored ones, and the batch in flight, when it commits
    const codes = batch.carMessages.get(vehicleId);
    if (codes) for (const m of codes.values()) if (m.paranoid && m.ptoken !== token) m.valid = false;
    let tokens = batch.paranoidTokens.get(vehicleId);
    if (!tokens) {
      batch.paranoidTokens.set(vehicleId, (tokens = []));
      batch.size++;
    }
    if (tokens[tokens.length - 1] !== token) tokens.push(token);
    return this.durableCommit(vehicleId);
  }

  /**
   * Removes the vehicle with everything of it: its buffered writes are forgotten, and the
   * commit deletes it after the batch in flight (whose rows of it go with it). Resolves once
   * committed to stable storage: true when the vehicle was there.
   */
  async removeVehicle(vehicleId: string): Promise<boolean> {
    discardVehicle(this.pending, vehicleId);
    const batch = this.pending;
    let removal = batch.removals.get(vehicleId);
    if (!removal) {
      removal = { removed: false } satisfies PendingRemoval;
      batch.removals.set(vehicleId, removal);
      batch.size++;
    }
    await this.durableCommit(vehicleId);
    return removal.removed;
  }

  /** Marks the pending batch durable and resolves once it is committed (rejects if the vehicle's part fails). */
  private durableCommit(vehicleId: string): Promise<void> {
    const batch = this.pending;
    batch.durable = true;
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ vehicleId, resolve, reject }));
    this.scheduleSoon();
    return done;
  }

  addUtilisation(deltas: readonly UtilisationDelta[]): void {
    if (addUtilisation(this.pending, deltas)) this.scheduled();
  }

  touchApiToken(ownerId: number, tokenHash: string, time: number): void {
    touchApiToken(this.pending, ownerId, tokenHash, time);
    this.scheduled();
  }

  // --- waiting for commits: what is passed on comes after the commit of what was written before ---

  /**
   * As `afterCommit(() => entry.fn(), entry.vehicleId, soon)`, keeping the entry itself; returns
   * the number of the batch it waits for (null: it ran at once), which `nextBatch()` equals while
   * that batch still takes writes.
   */
  afterCommitOf(entry: { readonly vehicleId: string; fn(): void }, soon = true): number | null {
    return this.settleAfter(entry, soon);
  }

  /** The number of the batch that takes writes now (not yet committing). */
  nextBatch(): number {
    return this.pending.seq;
  }

  /**
   * Calls `fn` once everything buffered before this call has been committed: at once (synchronously)
   * when nothing is buffered nor being committed, else after the commit, in the order of the calls.
   * A commit that fails is tried again (`retryDelaysMs`), and while the database is away, until it
   * answers: `fn` waits. When a commit is given up (an error that would fail again, or closing),
   * that is reported to `onBackgroundError` (its writes are lost) and the callbacks still run,
   * except those given the `vehicleId` whose writes were lost: they pass on that vehicle's data,
   * which is not stored. An exception thrown by `fn` is reported the same way.
   */
  afterCommit(fn: () => void, vehicleId?: string, soon = true): void {
    this.settleAfter(vehicleId === undefined ? fn : { vehicleId, fn }, soon);
  }

  /** Runs `s` after the batch it joins (at once when none waits); the batch's number, or null. */
  private settleAfter(s: Settled, soon: boolean): number | null {
    const batch = this.awaited();
    if (batch === null) {
      if (typeof s === 'function') s();
      else s.fn();
      return null;
    }
    batch.settled.push(s);
    if (batch === this.pending && soon) this.scheduleSoon();
    return batch.seq;
  }

  /**
   * For a read: resolves once everything buffered before this call has been committed (or given
   * up); null when nothing is buffered nor being committed (nothing to wait for). Rejects with
   * VTS_ERR_STORE_UNAVAILABLE while the database is away (a read must not wait for the outage).
   */
  committed(): Promise<void> | null {
    const batch = this.awaited();
    return batch && this.readerOf(batch);
  }

  /**
   * Like `committed()`, for the car messages, last-update time, paranoid token and removal of
   * one vehicle: null when none of them is buffered or being committed.
   */
  committedFor(vehicleId: string): Promise<void> | null {
    const p = this.pending;
    if (p.holdsVehicle(vehicleId)) return this.readerOf(p);
    const f = this.inflight;
    if (f !== null && f.holdsVehicle(vehicleId)) return this.readerOf(f);
    return null;
  }

  /**
   * Whether anything of the vehicle is buffered or being committed: whether `committedFor` would
   * give a promise (asked without making one, by the reads that answer at once from memory).
   */
  holdsVehicle(vehicleId: string): boolean {
    const f = this.inflight;
    return this.pending.holdsVehicle(vehicleId) || (f !== null && f.holdsVehicle(vehicleId));
  }

  /** The batch whose commit a new waiter waits for: the pending one, else the one in flight. */
  private awaited(): WriteBatch | null {
    const p = this.pending;
    if (p.size > 0 || p.settled.length > 0 || p.waiters.length > 0) return p;
    return this.inflight;
  }

  private readerOf(batch: WriteBatch): Promise<void> {
    if (this.retry.holding) return Promise.reject(this.retry.unavailable());
    const done = new Promise<void>((resolve, reject) => {
      batch.settled.push(resolve);
      batch.readers.push(reject);
    });
    if (batch === this.pending) this.scheduleSoon();
    return done;
  }

  /** Forgets pending uses of one token, or of all tokens of the owner when tokenHash is omitted. */
  discardTokenTouches(ownerId: number, tokenHash?: string): void {
    discardTokenTouches(this.pending, ownerId, tokenHash);
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

  /**
   * From now on a batch is given up after its scheduled tries instead of being held while the
   * database is away (the process is stopping): the held batch's next try comes at once.
   */
  close(): void {
    this.retry.close();
  }

  /** Commits everything pending now (after the batch in flight, if any). Rejects if that fails. */
  flush(): Promise<void> {
    const run = this.chain.then(() => this.commitPending());
    this.chain = run.catch(() => undefined);
    return run;
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
    const p = this.pending;
    if (p.empty && p.waiters.length === 0 && p.settled.length === 0) this.clearSchedule();
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

  /** The database is away: the batch is held, and the reads waiting for it (or for the pending one) are refused. */
  private held(batch: WriteBatch, err: unknown): void {
    const refused = this.retry.unavailable();
    for (const b of [batch, this.pending]) {
      for (const reject of b.readers) reject(refused);
      b.readers.length = 0;
    }
    const writes = batch.writes + this.pending.writes;
    this.report(
      new Error(
        `the database does not answer (${err instanceof Error ? err.message : String(err)}): ${writes} writes are held and tried again until it does; nothing of them is passed on meanwhile, and cars are read no further past ${this.bound.maxWrites} held writes`,
        { cause: err }, // on PostgreSQL the store's one line of the outage says it (src/store/outage.ts)
      ),
    );
  }

  private async commitPending(): Promise<void> {
    this.clearSchedule();
    const batch = this.pending;
    if (batch.empty && batch.waiters.length === 0 && batch.settled.length === 0) return;
    this.pending = new WriteBatch();
    this.inflight = batch;
    let failure: Failure | undefined;
    try {
      failure = await this.retry.commit(batch);
      for (const w of batch.waiters) {
        if (failure && (failure.failed === null || failure.failed.has(w.vehicleId))) w.reject(failure.error);
        else w.resolve();
      }
      if (!failure) this.committedBatches++;
      // What waited for this commit goes on (a commit given up is reported: what it held is lost
      // either way), but not what passes on the data of a vehicle whose writes were lost. The
      // batch stays in flight meanwhile, so that a callback that waits for a commit in turn is
      // queued here, after the callbacks before it, not run ahead of them.
      const settled = batch.settled;
      for (let k = 0; k < settled.length; k++) {
        try {
          runSettled(settled[k]!, failure);
        } catch (err) {
          this.report(err);
        }
      }
    } finally {
      this.inflight = null;
    }
    if (failure) throw failure.error;
  }
}

function runSettled(s: Settled, failure: Failure | undefined): void {
  if (typeof s === 'function') return s();
  if (failure && (failure.failed === null || failure.failed.has(s.vehicleId))) return;
  s.fn();
}
