/**
 * Runs jobs that are heavy but not urgent (a vehicle's drives tracker loaded from the store at its
 * first record after a restart) a few at a time, and lets the event loop have a turn once the jobs
 * started in one turn have run for `sliceMs`: with the synchronous SQLite store, thousands of
 * loads queued by a reconnect storm would otherwise run in one microtask drain, and every other
 * request (an app's `/api/status`) would wait behind all of them.
 */
export class TurnPacer {
  private readonly queue: (() => void)[] = [];
  private head = 0;
  private active = 0;
  private sliceStart = -Infinity;
  private yielding = false;

  constructor(
    /** Jobs under way at once (several, so that a database over the network is kept busy). */
    private readonly concurrency = 4,
    /** Milliseconds of jobs per event-loop turn. */
    private readonly sliceMs = 5,
    private readonly now: () => number = () => performance.now(),
    private readonly yieldTurn: (next: () => void) => void = (next) => void setImmediate(next),
  ) {}

  /** Jobs waiting for their turn (not counting those under way). */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Runs `job` when its turn comes; settles as the job does. */
  run<T>(job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push(() => {
        let p: Promise<T>;
        try {
          p = job();
        } catch (err) {
          p = Promise.reject(err);
        }
        p.then(resolve, reject).finally(() => {
          this.active--;
          this.next();
        });
      });
      this.next();
    });
  }

  private next(): void {
    while (!this.yielding && this.active < this.concurrency && this.head < this.queue.length) {
      if (this.now() - this.sliceStart >= this.sliceMs) {
        // this turn has had its share: the next jobs start after the event loop's own work
        this.yielding = true;
        this.yieldTurn(() => {
          this.yielding = false;
          this.sliceStart = this.now();
          this.next();
        });
        return;
      }
      const start = this.queue[this.head]!;
      this.queue[this.head++] = noop;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.active++;
      start();
    }
  }
}

const noop = (): void => undefined;
