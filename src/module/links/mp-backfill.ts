/**
 * History sent over the v2 link before the live records (`vts module --simulate day`): each record
 * an acknowledged historical record `h<ackid>,<-age>,<type>,<recordnumber>,<lifetime>,<data>`
 * (docs/protocol/messages.md §3.11), the age counted from the module clock when it goes out. A few
 * are in flight at a time; the server answers `h<ackid>` once a record is stored. What a dropped
 * connection left unacknowledged goes again on the next one, as the firmware resends its data
 * notifications. The server refusing (a refused login, no acknowledgement for a while) fails the
 * backfill: `done` rejects with the reason.
 */
import { VtsError } from '../../errors.js';

export interface BackfillRecord {
  /** Epoch seconds (module clock) the record describes. */
  time: number;
  type: string;
  recordNumber: number;
  /** Seconds it is kept. */
  lifetime: number;
  data: string;
}

export interface BackfillOptions {
  /** Records in flight at once (default 32). */
  window?: number;
  /** Real ms without any acknowledgement after which the server is taken to refuse (default 60000). */
  stallMs?: number;
  /** Called after each acknowledgement. */
  onProgress?: (acked: number, total: number) => void;
}

/** One connection's means: send an `h` data part, the module clock, a fresh ack id. */
export interface BackfillIo {
  send(data: string): void;
  now(): number;
  nextAckId(): number;
}

export class HistoryBackfill {
  readonly total: number;
  /** Resolves once every record is acknowledged; rejects when the server refuses. */
  readonly done: Promise<void>;
  private readonly acked: boolean[];
  private ackedCount = 0;
  private failed: Error | null = null;
  /** Ack id → record index, of the current connection's records in flight. */
  private inFlight = new Map<string, number>();
  private wake: (() => void) | null = null;
  private connection = 0;
  private resolve!: () => void;
  private reject!: (err: Error) => void;

  constructor(
    private readonly records: readonly BackfillRecord[],
    private readonly opts: BackfillOptions = {},
  ) {
    this.total = records.length;
    this.acked = records.map(() => false);
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.done.catch(() => undefined); // a caller that does not wait must not see an unhandled rejection
    if (this.total === 0) this.resolve();
  }

  /** Whether nothing is left to send (every record acknowledged, or the backfill failed). */
  get finished(): boolean {
    return this.ackedCount === this.total || this.failed !== null;
  }

  get acknowledged(): number {
    return this.ackedCount;
  }

  /** Takes an `h` from the server; true when it acknowledged one of these records. */
  ack(code: string): boolean {
    const i = this.inFlight.get(code);
    if (i === undefined) return false;
    this.inFlight.delete(code);
    if (!this.acked[i]) {
      this.acked[i] = true;
      this.ackedCount++;
      this.opts.onProgress?.(this.ackedCount, this.total);
      if (this.ackedCount === this.total) this.resolve();
    }
    this.wake?.();
    return true;
  }

  /** The server refused: nothing more is sent, `done` rejects. */
  fail(err: Error): void {
    if (this.finished) return;
    this.failed = err;
    this.reject(err);
    this.wake?.();
  }

  /** The connection is gone: `run` returns, what it left in flight goes on the next one. */
  connectionLost(): void {
    this.connection++;
    this.inFlight = new Map();
    this.wake?.();
  }

  /**
   * Sends the records not yet acknowledged over the current connection, oldest first, at most
   * `window` in flight; returns once all are acknowledged, the connection is lost, or it failed.
   */
  async run(io: BackfillIo): Promise<void> {
    const connection = this.connection;
    const window = this.opts.window ?? 32;
    const stallMs = this.opts.stallMs ?? 60_000;
    const live = (): boolean => connection === this.connection && !this.finished;
    let next = 0;
    while (live()) {
      while (this.inFlight.size < window && next < this.total) {
        const i = next++;
        if (this.acked[i]) continue;
        const r = this.records[i]!;
        const id = String(io.nextAckId());
        this.inFlight.set(id, i);
        const age = Math.min(0, Math.round(r.time - io.now()));
        io.send(`${id},${age},${r.type},${r.recordNumber},${r.lifetime},${r.data}`);
      }
      if (this.inFlight.size === 0) break;
      const before = this.ackedCount;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, stallMs);
        timer.unref();
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
      if (live() && this.ackedCount === before && this.inFlight.size > 0) {
        this.fail(
          new VtsError(
            'VTS_ERR_STORE_UNAVAILABLE',
            `the server acknowledged none of the simulated day's history records for ${Math.round(stallMs / 1000)} s (${this.ackedCount} of ${this.total} stored): its database may be failing, or it is not a server that stores history`,
            { whole: true },
          ),
        );
      }
    }
  }
}
