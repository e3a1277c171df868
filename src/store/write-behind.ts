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
 */
import { performance } from 'node:perf_hooks';
import { VtsError } from '../errors.js';
import { isOutage } from './outage.js';
import type { CarMessage, HistoricalRecord, UtilisationDelta } from './store.js';

export {
  WriteBatch,
  splitByVehicle,
  type PendingCarMessage,
  type PendingRemoval,
  type PendingTokenTouch,
  type Settled,
} from './write-batch.js';
import { WriteBatch, splitByVehicle, type PendingRemoval, type Settled } from './write-batch.js';

/** Writes one batch in one transaction; throws (or rejects) when nothing was committed. */
export type CommitFn = (batch: WriteBatch) => void | Promise<void>;

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

const DEFAULT_RETRY_DELAYS_MS = [50, 100, 200, 400, 800];
export const DEFAULT_MAX_HELD_WRITES = 100_000;
const DEFAULT_MAX_HELD_BYTES = 64 * 1024 * 1024;

const SEP = '\u0000';

/** What a commit lost: its error, and the parts that failed (null: all of it). */
interface Failure {
  error: unknown;
  failed: ReadonlySet<string> | null;
}

export class WriteBehindBuffer {
  private readonly commitFn: CommitFn;
  private readonly delayMs: number;
  private readonly maxPending: number;
  private readonly onBackgroundError: (err: unknown) => void;
  private readonly retryDelaysMs: readonly number[];
  private readonly retryable: (err: unknown) => boolean;
  private readonly onCommit: ((entries: number, seconds: number) => void) | undefined;
  private readonly onResumed: ((seconds: number) => void) | undefined;
  private readonly maxRetryDelayMs: number;
  private readonly maxHeldWrites: number;
  private readonly maxHeldBytes: number;

  /** While a batch is held (the database is away): the error of its first try past the schedule, and since when. */
  private away: { error: unknown; since: number } | null = null;
  /** Closing: a batch is given up after its scheduled tries, not held. */
  private closing = false;
  /** Cuts short the pause before the next try of a held batch (when closing). */
  private wake: (() => void) | null = null;
  /** Batches committed so far (see `commits`). */
  private committedBatches = 0;

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
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.retryable = opts.retryable ?? (() => true);
    this.onCommit = opts.onCommit;
    this.onResumed = opts.onResumed;
    this.maxRetryDelayMs = Math.max(1, opts.maxRetryDelayMs ?? 5000);
    this.maxHeldWrites = Math.max(1, opts.maxHeldWrites ?? DEFAULT_MAX_HELD_WRITES);
    this.maxHeldBytes = Math.max(1, opts.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES);
  }

  // --- the hold bound ---

  /**
   * True when the writes held (buffered, being committed, or held while the database is away)
   * reach the bound: whoever feeds the buffer should stop reading its source until `afterCommit`
   * calls back.
   */
  get congested(): boolean {
    const p = this.pending;
    const f = this.inflight;
    return p.writes + (f ? f.writes : 0) >= this.maxHeldWrites || p.bytes + (f ? f.bytes : 0) >= this.maxHeldBytes;
  }

  /** How many batches have been committed so far: a feeder counts its writes since the last it saw. */
  get commits(): number {
    return this.committedBatches;
  }

  /** Whether a batch is held because the database does not answer. */
  get holding(): boolean {
    return this.away !== null;
  }

  // --- writes ---

  /**
   * The latest message of its code; with `historyExpires` > 0 also its historical record (type =
   * code, record number 0), kept with it: one map entry per message on the hot path.
   */
  putCarMessage(vehicleId: string, msg: Omit<CarMessage, 'valid'>, historyExpires = 0): void {
    const batch = this.pending;
    let codes = batch.carMessages.get(vehicleId);
    if (!codes) {
      codes = new Map();
      batch.carMessages.set(vehicleId, codes);
    }
    const prev = codes.get(msg.code);
    batch.writes++;
    batch.bytes += msg.data.length + WRITE_OVERHEAD;
    if (!prev) batch.size++;
    else if (prev.historyExpires > 0 && prev.time !== msg.time) {
      // another second: the replaced message's historical record is a record of its own (one
      // that addHistorical buffered with the same key wins, as it does at commit)
      this.putHistorical(
        { vehicleId, type: prev.code, recordNumber: 0, time: prev.time, data: prev.data, expires: prev.historyExpires },
        vehicleId,
        false,
      );
    }
    codes.set(msg.code, {
      vehicleId,
      code: msg.code,
      data: msg.data,
      time: msg.time,
      paranoid: msg.paranoid,
      ptoken: msg.ptoken,
      valid: true,
      historyExpires,
    });
    batch.lastUpdates.set(vehicleId, msg.time);
    this.scheduled();
  }

  /** Adds the record (under `vehicleId` when given: the store's normalised id). */
  addHistorical(rec: HistoricalRecord, vehicleId = rec.vehicleId): void {
    this.countWrite(rec);
    this.putHistorical(rec, vehicleId);
    this.scheduled();
  }

  /**
   * Adds the record and resolves once the batch holding it is committed to stable storage
   * (rejects if that fails).
   */
  addHistoricalDurable(rec: HistoricalRecord, vehicleId = rec.vehicleId): Promise<void> {
    this.countWrite(rec);
    this.putHistorical(rec, vehicleId);
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
    this.discardVehicle(vehicleId);
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

  // --- waiting for commits: what is passed on comes after the commit of what was written before ---

  /**
   * Calls `fn` once everything buffered before this call has been committed: at once (synchronously)
   * when nothing is buffered nor being committed, else after the commit, in the order of the calls.
   * A commit that fails is tried again (`retryDelaysMs`), and while the database is away, until it
   * answers: `fn` waits. When a commit is given up (an error that would fail again, or closing),
   * that is reported to `onBackgroundError` (its writes are lost) and the callbacks still run,
   * except those given the `vehicleId` whose writes were lost: they pass on that vehicle's data,
   * which is not stored. An exception thrown by `fn` is reported the same way.
   */
  afterCommit(fn: () => void, vehicleId?: string): void {
    const batch = this.awaited();
    if (batch === null) return fn();
    batch.settled.push(vehicleId === undefined ? fn : { vehicleId, fn });
    if (batch === this.pending) this.scheduleSoon();
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

  /** The batch whose commit a new waiter waits for: the pending one, else the one in flight. */
  private awaited(): WriteBatch | null {
    const p = this.pending;
    if (p.size > 0 || p.settled.length > 0 || p.waiters.length > 0) return p;
    return this.inflight;
  }

  private readerOf(batch: WriteBatch): Promise<void> {
    if (this.away !== null) return Promise.reject(this.unavailable());
    const done = new Promise<void>((resolve, reject) => {
      batch.settled.push(resolve);
      batch.readers.push(reject);
    });
    if (batch === this.pending) this.scheduleSoon();
    return done;
  }

  private unavailable(): VtsError {
    const err = this.away?.error;
    const why = err instanceof Error ? err.message : String(err);
    return new VtsError('VTS_ERR_STORE_UNAVAILABLE', why, { cause: err });
  }

  /** A write from outside (a car message, a historical record): counted against the hold bound. */
  private countWrite(rec: HistoricalRecord): void {
    const batch = this.pending;
    batch.writes++;
    batch.bytes += rec.data.length + WRITE_OVERHEAD;
  }

  // --- edits of buffered writes ---

  /** Forgets the pending writes of a vehicle (it is being removed). */
  private discardVehicle(vehicleId: string): void {
    const batch = this.pending;
    const codes = batch.carMessages.get(vehicleId);
    if (codes) {
      batch.size -= codes.size;
      batch.carMessages.delete(vehicleId);
    }
    batch.lastUpdates.delete(vehicleId);
    if (batch.paranoidTokens.delete(vehicleId)) batch.size--;
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

  /**
   * From now on a batch is given up after its scheduled tries instead of being held while the
   * database is away (the process is stopping): the held batch's next try comes at once.
   */
  close(): void {
    this.closing = true;
    this.wake?.();
  }

  /** Commits everything pending now (after the batch in flight, if any). Rejects if that fails. */
  flush(): Promise<void> {
    const run = this.chain.then(() => this.commitPending());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private putHistorical(rec: HistoricalRecord, vehicleId: string, replace = true): void {
    const batch = this.pending;
    const key = vehicleId + SEP + rec.type + SEP + rec.recordNumber + SEP + rec.time;
    if (!batch.historical.has(key)) batch.size++;
    else if (!replace) return;
    batch.historical.set(key, {
      vehicleId,
      type: rec.type,
      recordNumber: rec.recordNumber,
      time: rec.time,
      data: rec.data,
      expires: rec.expires,
    });
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

  /**
   * Commits the batch: a failed commit rolled back, so the same batch is tried again while the
   * error is retryable; then each vehicle's part alone, so that one vehicle's rows do not take
   * the others' with them. Resolves to what was lost, undefined when nothing was.
   */
  private async commitWithRetries(batch: WriteBatch): Promise<Failure | undefined> {
    let delay = 0;
    for (let tries = 0; !batch.empty; tries++) {
      try {
        const started = this.onCommit ? performance.now() : 0;
        const done = this.commitFn(batch);
        if (done) await done;
        this.onCommit?.(batch.size, (performance.now() - started) / 1000);
        if (this.away !== null) this.resumed();
        return undefined;
      } catch (err) {
        // parts of a batch the database is away for would each fail the same way (src/store/outage.ts)
        if (!this.retryable(err)) return isOutage(err) ? { error: err, failed: null } : this.commitSplit(batch, err);
        const scheduled = this.retryDelaysMs[tries];
        if (scheduled !== undefined) {
          delay = scheduled;
          this.report(new Error(`commit failed, trying again in ${delay} ms: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
        } else if (this.closing) {
          const why = err instanceof Error ? err.message : String(err);
          const lost = `the database does not answer at shutdown (${why}): ${batch.writes} buffered writes are lost`;
          return { error: new VtsError('VTS_ERR_STORE_UNAVAILABLE', lost, { whole: true, cause: err }), failed: null };
        } else {
          delay = Math.min(this.maxRetryDelayMs, Math.max(2 * delay, 1));
          if (this.away === null) this.hold(batch, err);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
    return undefined;
  }

  /** The database is away: the batch is held, and the reads waiting for it are refused. */
  private hold(batch: WriteBatch, err: unknown): void {
    this.away = { error: err, since: performance.now() };
    const refused = this.unavailable();
    for (const b of [batch, this.pending]) {
      for (const reject of b.readers) reject(refused);
      b.readers.length = 0;
    }
    const writes = batch.writes + this.pending.writes;
    this.report(
      new Error(
        `the database does not answer (${err instanceof Error ? err.message : String(err)}): ${writes} writes are held and tried again until it does; nothing of them is passed on meanwhile, and cars are read no further past ${this.maxHeldWrites} held writes`,
        { cause: err }, // on PostgreSQL the store's one line of the outage says it (src/store/outage.ts)
      ),
    );
  }

  private resumed(): void {
    const since = this.away!.since;
    this.away = null;
    this.onResumed?.((performance.now() - since) / 1000);
  }

  /** Commits each vehicle's part of a failed batch alone; what failed, with the first error. */
  private async commitSplit(batch: WriteBatch, err: unknown): Promise<Failure | undefined> {
    const parts = splitByVehicle(batch);
    if (parts.size < 2) return { error: err, failed: null };
    let first: unknown;
    const failed = new Set<string>();
    for (const [key, part] of parts) {
      try {
        const done = this.commitFn(part);
        if (done) await done;
      } catch (partErr) {
        first ??= partErr;
        failed.add(key);
      }
    }
    // every part went in alone: nothing is lost, but say what happened
    if (failed.size === 0) {
      this.report(new Error(`a batch failed, its ${parts.size} parts were committed one by one: ${String(err)}`, { cause: err }));
      return undefined;
    }
    return { error: first, failed };
  }

  private async commitPending(): Promise<void> {
    this.clearSchedule();
    const batch = this.pending;
    if (batch.empty && batch.waiters.length === 0 && batch.settled.length === 0) return;
    this.pending = new WriteBatch();
    this.inflight = batch;
    let failure: Failure | undefined;
    try {
      failure = await this.commitWithRetries(batch);
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

/** What a held write costs beyond its data (keys, object): counted against the bytes bound. */
const WRITE_OVERHEAD = 64;

function runSettled(s: Settled, failure: Failure | undefined): void {
  if (typeof s === 'function') return s();
  if (failure && (failure.failed === null || failure.failed.has(s.vehicleId))) return;
  s.fn();
}
