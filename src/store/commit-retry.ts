/**
 * How the write-behind buffer (src/store/write-behind.ts) commits one batch: the database's
 * `commit` tried again while its error is retryable, first after the scheduled pauses, then,
 * the database being away, held and tried again with growing pauses until it answers (or the
 * buffer is closed); an error that would fail the same way again has each vehicle's part
 * committed alone, so one vehicle's rows do not take the others' with them. What is lost is
 * returned as a `Failure`.
 */
import { performance } from 'node:perf_hooks';
import { VtsError } from '../errors.js';
import { isOutage } from './outage.js';
import { splitByVehicle, type WriteBatch } from './write-batch.js';

/** Writes one batch in one transaction; throws (or rejects) when nothing was committed. */
export type CommitFn = (batch: WriteBatch) => void | Promise<void>;

/** What a commit lost: its error, and the parts that failed (null: all of it). */
export interface Failure {
  error: unknown;
  failed: ReadonlySet<string> | null;
}

export interface CommitRetryOptions {
  /** Pauses before each new try of a failed commit (see WriteBehindOptions.retryDelaysMs). */
  retryDelaysMs?: readonly number[];
  /** Longest pause between two tries of a held batch (default 5000 ms). */
  maxRetryDelayMs?: number;
  /** Whether a failed commit may succeed when tried again (default: always). */
  retryable?: (err: unknown) => boolean;
  /** Told once the database answers again after a batch was held: the seconds it was away. */
  onResumed?: (seconds: number) => void;
  /** Told of each committed batch: its entries and the seconds its commit took. */
  onCommit?: (entries: number, seconds: number) => void;
}

const DEFAULT_RETRY_DELAYS_MS = [50, 100, 200, 400, 800];

export class CommitRetry {
  private readonly retryDelaysMs: readonly number[];
  private readonly retryable: (err: unknown) => boolean;
  private readonly onCommit: ((entries: number, seconds: number) => void) | undefined;
  private readonly onResumed: ((seconds: number) => void) | undefined;
  private readonly maxRetryDelayMs: number;

  /** While a batch is held (the database is away): the error of its first try past the schedule, and since when. */
  private away: { error: unknown; since: number } | null = null;
  /** Closing: a batch is given up after its scheduled tries, not held. */
  private closing = false;
  /** Cuts short the pause before the next try of a held batch (when closing). */
  private wake: (() => void) | null = null;

  /**
   * `report` is told of each failed try (it must not throw); `onHold` of the batch being held
   * (`holding` is true by then), with the error of its try.
   */
  constructor(
    private readonly commitFn: CommitFn,
    opts: CommitRetryOptions,
    private readonly report: (err: unknown) => void,
    private readonly onHold: (batch: WriteBatch, err: unknown) => void,
  ) {
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.retryable = opts.retryable ?? (() => true);
    this.onCommit = opts.onCommit;
    this.onResumed = opts.onResumed;
    this.maxRetryDelayMs = Math.max(1, opts.maxRetryDelayMs ?? 5000);
  }

  /** Whether a batch is held because the database does not answer. */
  get holding(): boolean {
    return this.away !== null;
  }

  /** The error a read gets while a batch is held: VTS_ERR_STORE_UNAVAILABLE, with the database's error. */
  unavailable(): VtsError {
    const err = this.away?.error;
    const why = err instanceof Error ? err.message : String(err);
    return new VtsError('VTS_ERR_STORE_UNAVAILABLE', why, { cause: err });
  }

  /** From now on a batch is given up after its scheduled tries; the held batch's next try comes at once. */
  close(): void {
    this.closing = true;
    this.wake?.();
  }

  /**
   * Commits the batch: a failed commit rolled back, so the same batch is tried again while the
   * error is retryable; then each vehicle's part alone, so that one vehicle's rows do not take
   * the others' with them. Resolves to what was lost, undefined when nothing was.
   */
  async commit(batch: WriteBatch): Promise<Failure | undefined> {
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

  /** The database is away: the batch is held (and whoever holds the buffer is told). */
  private hold(batch: WriteBatch, err: unknown): void {
    this.away = { error: err, since: performance.now() };
    this.onHold(batch, err);
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
}
