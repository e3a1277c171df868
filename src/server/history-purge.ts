/**
 * The retention purge of the historical records (issue 32, docs/capacity.md "History"): the
 * housekeeping deletes what has expired in batches of `batch` records, and after each batch waits
 * so that the purge takes at most `duty` of the event loop's time (a batch of 20 ms is followed by
 * a pause of 180 ms at 10 %): the cars' messages, the apps and the HTTP calls are served between
 * the batches, and a backlog of millions of rows (after a retention was shortened, or a long stop)
 * is worked off at a bounded cost instead of in one long stall. A run ends when a batch is not
 * full, or once it has taken `budgetMs` (the next housekeeping run goes on).
 */
import type { Store } from '../store/store.js';

export interface PurgePacing {
  /** Records per DELETE. */
  batch: number;
  /** The share of the time the purge may take (0 < duty ≤ 1). */
  duty: number;
  /** A run stops starting batches after this long (ms). */
  budgetMs: number;
}

/**
 * 500 records a batch: on a loaded 2-core machine a DELETE of 2,500 expired records held the event
 * loop for about 280 ms (bench "history"); 500 keep each stall near 50 ms there, a few ms on a
 * quiet one. At 10 % a run of 45 s deletes up to 4.5 s worth of batches.
 */
export const HISTORY_PURGE: PurgePacing = { batch: 500, duty: 0.1, budgetMs: 45_000 };

export interface PurgeClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Waits `ms` (0: until the event loop has served what is pending). */
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: PurgeClock = {
  now: () => performance.now(),
  // setImmediate first: the sockets are read (the poll phase) before the next batch, however short the pause
  sleep: async (ms) => {
    await new Promise((r) => setImmediate(r));
    if (ms >= 1) await new Promise((r) => setTimeout(r, ms));
  },
};

export interface PurgeOutcome {
  records: number;
  batches: number;
  /** Wall time of the run (ms), pauses included. */
  ms: number;
}

/** Purges the records expired before `now` (epoch seconds), paced as `pacing` says; `stopped` ends it early (the server is stopping). */
export async function purgeExpiredHistory(
  store: Store,
  now: number,
  pacing: PurgePacing = HISTORY_PURGE,
  stopped: () => boolean = () => false,
  clock: PurgeClock = REAL_CLOCK,
): Promise<PurgeOutcome> {
  const started = clock.now();
  let records = 0;
  let batches = 0;
  for (;;) {
    const before = clock.now();
    const n = await store.purgeExpiredHistorical(now, pacing.batch);
    records += n;
    batches++;
    if (n < pacing.batch || stopped()) break;
    const after = clock.now();
    if (after - started >= pacing.budgetMs) break;
    await clock.sleep(((after - before) * (1 - pacing.duty)) / pacing.duty);
    if (stopped()) break;
  }
  return { records, batches, ms: clock.now() - started };
}
