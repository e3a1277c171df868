/**
 * The paced retention purge (src/server/history-purge.ts): batches of the given size, a pause after
 * each one of (1 − duty) / duty times the batch's own time, other work of the event loop served
 * between batches (by order of events, no timing), a run ended by a short batch, by its budget or
 * by the server stopping.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { purgeExpiredHistory, type PurgeClock } from '../../src/server/history-purge.js';
import type { Store } from '../../src/store/store.js';
import { freshStore, seed } from './helpers.js';

async function withExpired(store: Store, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await store.addHistorical({ vehicleId: 'DEMO1', type: 'D', recordNumber: 0, time: 100 + i, data: 'x', expires: 1000 });
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'L', recordNumber: 0, time: 100, data: 'kept', expires: 5000 });
  await store.flush();
}

/** A fake clock: sleeps are recorded and pass at once (after a turn of the event loop). */
function fakeClock(events: string[]): PurgeClock & { t: number } {
  const clock = {
    t: 0,
    now: () => clock.t,
    sleep: async (ms: number) => {
      events.push(`sleep ${ms}`);
      await new Promise((r) => setImmediate(r));
    },
  };
  return clock;
}

/** The store, its purge wrapped by `around`. */
function wrapped(store: Store, around: (n: number, limit: number) => void): Store {
  const w = Object.create(store) as Store;
  w.purgeExpiredHistorical = async (now, limit) => {
    const n = await store.purgeExpiredHistorical(now, limit);
    around(n, limit);
    return n;
  };
  return w;
}

test('batches of the given size, each followed by a pause for the duty cycle, until a short batch', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await withExpired(store, 25);
  const events: string[] = [];
  const clock = fakeClock(events);
  const w = wrapped(store, (n, limit) => {
    clock.t += 10; // each batch "takes" 10 ms
    events.push(`batch ${limit} ${n}`);
  });
  const out = await purgeExpiredHistory(w, 2000, { batch: 10, duty: 0.2, budgetMs: 1e9 }, () => false, clock);
  assert.deepEqual(events, ['batch 10 10', 'sleep 40', 'batch 10 10', 'sleep 40', 'batch 10 5']);
  assert.deepEqual({ records: out.records, batches: out.batches }, { records: 25, batches: 3 });
  assert.deepEqual(
    (await store.summarizeHistorical('DEMO1', 0)).map((s) => [s.type, s.totalRecords]),
    [['L', 1]],
  );
});

test('other work is served between two batches', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await withExpired(store, 40);
  const order: string[] = [];
  const w = wrapped(store, () => order.push('purge'));
  // "ingest": a chain of event-loop turns (as socket reads come) running while the purge runs
  let running = true;
  const other = (): void => {
    order.push('other');
    if (running) setImmediate(other);
  };
  setImmediate(other);
  await purgeExpiredHistory(w, 2000, { batch: 10, duty: 0.5, budgetMs: 1e9 });
  running = false;
  const purges = order.flatMap((e, i) => (e === 'purge' ? [i] : []));
  assert.equal(purges.length, 5, 'four full batches and an empty one');
  for (let k = 1; k < purges.length; k++) {
    assert.ok(order.slice(purges[k - 1]! + 1, purges[k]!).includes('other'), `work served between batch ${k} and ${k + 1}: ${order.join(' ')}`);
  }
});

test('a run stops at its budget and when the server stops', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await withExpired(store, 50);
  const clock = fakeClock([]);
  const w = wrapped(store, () => (clock.t += 10));
  // a batch takes 10 ms and the pause passes at once: the fifth batch ends at 50 ms, past the budget of 45
  const out = await purgeExpiredHistory(w, 2000, { batch: 5, duty: 0.5, budgetMs: 45 }, () => false, clock);
  assert.deepEqual({ batches: out.batches, records: out.records }, { batches: 5, records: 25 });
  let asked = 0;
  const stopping = await purgeExpiredHistory(w, 2000, { batch: 5, duty: 0.5, budgetMs: 1e9 }, () => ++asked > 1, clock);
  assert.equal(stopping.batches, 1, 'stopped after the first batch and its pause');
  assert.equal(stopping.records, 5);
});
