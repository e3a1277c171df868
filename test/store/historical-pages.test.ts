/** pageHistorical and countHistorical: a long history read in pages (`vts sessions rebuild`), on both databases. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoricalEntry, HistoricalPosition } from '../../src/store/store.js';
import { freshStore, seed } from './helpers.js';

test('pageHistorical: pages of one type by time then record number, each after the last, the type matched without case; countHistorical counts on the same terms', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const put = (type: string, recordNumber: number, time: number, data: string): Promise<void> =>
    store.addHistorical({ vehicleId: 'DEMO1', type, recordNumber, time, data, expires: 1e10 });
  // several records in one second, written out of order
  for (const [n, time] of [[2, 100], [0, 100], [1, 100], [0, 99], [0, 101], [5, 101], [0, 102]] as const) await put('*-LOG-Trip', n, time, `trip ${time}/${n}`);
  await put('*-Log-Trip', 0, 103, 'other case');
  await put('*-LOG-Grid', 0, 100, 'grid');
  await put('S', 0, 100, 'soc');

  const all: HistoricalEntry[] = [];
  let after: HistoricalPosition | null = null;
  for (;;) {
    const page = await store.pageHistorical('demo1', '*-LOG-Trip', after, 3);
    assert.ok(page.length <= 3);
    all.push(...page);
    if (page.length < 3) break;
    const last = page[page.length - 1]!;
    after = { time: last.time, recordNumber: last.recordNumber };
  }
  assert.deepEqual(
    all.map((r) => `${r.time}/${r.recordNumber} ${r.data}`),
    ['99/0 trip 99/0', '100/0 trip 100/0', '100/1 trip 100/1', '100/2 trip 100/2', '101/0 trip 101/0', '101/5 trip 101/5', '102/0 trip 102/0', '103/0 other case'],
  );
  assert.deepEqual(await store.pageHistorical('DEMO1', '*-LOG-Trip', { time: 100, recordNumber: 1 }, 2), [
    { time: 100, recordNumber: 2, data: 'trip 100/2' },
    { time: 101, recordNumber: 0, data: 'trip 101/0' },
  ]);
  assert.deepEqual(await store.pageHistorical('DEMO1', '*-LOG-Trip', { time: 103, recordNumber: 0 }, 10), []);
  assert.deepEqual(await store.pageHistorical('NOSUCH', '*-LOG-Trip', null, 10), []);

  assert.equal(await store.countHistorical('demo1', ['*-LOG-Trip']), 8);
  assert.equal(await store.countHistorical('DEMO1', ['S', '*-log-grid', '*-LOG-Trip', 'D']), 10);
  assert.equal(await store.countHistorical('DEMO1', []), 0);
  assert.equal(await store.countHistorical('NOSUCH', ['S']), 0);
});
