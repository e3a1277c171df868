/**
 * A database outage as one event, not one log line per failed write: the first operation that
 * fails because the database cannot be reached (or does not answer in time) starts the outage
 * (`down`, with that error), later ones only count, and the first operation that succeeds again
 * ends it (`up`, with the count and the duration). The errors of an outage are marked, so that
 * whoever would log each of them (a write that was not acknowledged, a background commit) can
 * tell that the outage was reported already (`isOutage`). `logOutage` writes the two lines.
 */
import type { Logger } from 'pino';

/** What the store tells of its database's availability. */
export type OutageEvent =
  | { state: 'down'; error: unknown }
  | { state: 'up'; failures: number; seconds: number };

const marked = new WeakSet<object>();

/** Whether `err` (or an error it was caused by) is one of an outage already reported. */
export function isOutage(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 8; depth++) {
    if (marked.has(e)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export class OutageWatch {
  private since: number | null = null;
  private failures = 0;

  constructor(
    private readonly tell: (event: OutageEvent) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether an outage is under way. */
  get down(): boolean {
    return this.since !== null;
  }

  /** An operation failed because the database is unavailable: counted, and `err` marked. */
  failed(err: unknown): void {
    if (typeof err === 'object' && err !== null) marked.add(err);
    this.failures++;
    if (this.since !== null) return;
    this.since = this.now();
    this.say({ state: 'down', error: err });
  }

  /** An operation succeeded: the end of the outage, if there is one. */
  succeeded(): void {
    if (this.since === null) return;
    const seconds = Math.max(0, (this.now() - this.since) / 1000);
    const failures = this.failures;
    this.since = null;
    this.failures = 0;
    this.say({ state: 'up', failures, seconds });
  }

  private say(event: OutageEvent): void {
    try {
      this.tell(event);
    } catch {
      // a listener that throws must not fail the store's operation
    }
  }
}

/**
 * Logs a failure of an operation that needs the store at `level`, or at debug only when it is one
 * of a database outage, whose line the store wrote once already.
 */
export function logStoreFailure(log: Pick<Logger, 'debug' | 'warn' | 'error'>, level: 'warn' | 'error', err: unknown, fields: Record<string, unknown>, msg: string): void {
  if (isOutage(err)) log.debug({ ...fields, err }, `${msg} (database outage)`);
  else log[level]({ ...fields, err }, msg);
}

/** One line when the database becomes unavailable (its error without a stack), one when it is back. */
export function logOutage(log: Logger, event: OutageEvent): void {
  if (event.state === 'down') {
    const error = event.error instanceof Error ? event.error.message : String(event.error);
    log.error({ error }, 'store: the database is unavailable; car writes are held and tried again, and what needs it fails, until it answers again; failures meanwhile are counted, not logged');
  } else {
    log.warn({ failures: event.failures, seconds: Math.round(event.seconds * 10) / 10 }, `store: the database answers again after ${event.seconds.toFixed(1)} s; ${event.failures} operation(s) failed meanwhile`);
  }
}
