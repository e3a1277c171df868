/**
 * Runs expensive secret checks (scrypt) a bounded number at a time: the rest wait in order, and
 * beyond `maxWaiting` a check is refused with `ChecksBusy` (the caller answers "try again") instead
 * of queueing CPU work without end. A login flood then costs a fixed share of the CPU and of
 * libuv's thread pool, whatever the number of connections.
 */
import { VtsError } from '../errors.js';

export class ChecksBusy extends VtsError {
  constructor() {
    super('VTS_ERR_CHECKS_BUSY');
  }
}

export class CheckQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** The most checks that ran at once (for tests and metrics). */
  peak = 0;

  constructor(
    readonly concurrency: number,
    readonly maxWaiting = 1000,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  }

  async run<T>(check: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) throw new ChecksBusy();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    this.peak = Math.max(this.peak, this.running);
    try {
      return await check();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiting check
      if (next) next();
      else this.running--;
    }
  }

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
