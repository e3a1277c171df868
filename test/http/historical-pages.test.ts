/**
 * `GET /api/historical/<id>/<type>` for a vehicle with more records than one page
 * (src/http/api-v2/historical.ts): the answer is written page by page (chunked, never held whole)
 * and is byte for byte the body of the records read at once; an answer of less than a page is one
 * body with its length, as before; `since` and the type in another case page the same way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/core/records/json.js';
import { historicalRecordRows } from '../../src/core/records/lists.js';
import { HISTORY_PAGE } from '../../src/http/api-v2/historical.js';
import { httpHarness } from './helpers.js';

const VID = 'TESTCAR';
const T0 = 1_700_000_000;

test('a long history is sent in pages, the same bytes as read at once', async (ctx) => {
  const h = await httpHarness(ctx);
  const store = h.t.server.store;
  // two pages and a part, with several records in the same second (record numbers 0 and 1)
  const n = 2 * HISTORY_PAGE + 17;
  for (let i = 0; i < n; i++) {
    await store.addHistorical({ vehicleId: VID, type: 'D', recordNumber: i % 2, time: T0 + Math.floor(i / 2), data: `d,${i},"quoted"\\`, expires: T0 + 10 * 365 * 86400 });
  }
  await store.addHistorical({ vehicleId: VID, type: 'L', recordNumber: 0, time: T0, data: 'short', expires: T0 + 86400 * 3650 });
  await store.flush();

  const all = await store.getHistorical(VID, 'D', -1);
  assert.equal(all.length, n);
  const r = await h.asDemo(`/api/historical/${VID}/D`);
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['transfer-encoding'], 'chunked', 'written in pages');
  assert.equal(r.headers['content-length'], undefined);
  assert.equal(r.body, canonicalJson(historicalRecordRows(all)));

  // the type in another case, and since (strictly newer): the page boundary falls elsewhere
  const since = T0 + 10;
  const newer = await store.getHistorical(VID, 'D', since);
  assert.equal(newer.length, n - 22);
  const s = await h.asDemo(`/api/historical/${VID}/d?since=${encodeURIComponent('2023-11-14 22:13:30')}`);
  assert.equal(s.status, 200);
  assert.equal(s.body, canonicalJson(historicalRecordRows(newer)));

  // exactly one page: the next page, empty, ends the array
  for (let i = 0; i < HISTORY_PAGE; i++) await store.addHistorical({ vehicleId: VID, type: 'X', recordNumber: 0, time: T0 + i, data: String(i), expires: T0 + 86400 * 3650 });
  await store.flush();
  const one = await h.asDemo(`/api/historical/${VID}/X`);
  assert.equal(one.headers['transfer-encoding'], 'chunked');
  assert.equal(one.body, canonicalJson(historicalRecordRows(await store.getHistorical(VID, 'X', -1))));

  // less than a page: one body with its length
  const short = await h.asDemo(`/api/historical/${VID}/L`);
  assert.equal(short.headers['transfer-encoding'], undefined);
  assert.equal(short.headers['content-length'], String(Buffer.byteLength(short.body)));
  assert.equal(short.body, canonicalJson(historicalRecordRows(await store.getHistorical(VID, 'L', -1))));
});

test('an empty type and the traffic counters answer as before', async (ctx) => {
  const h = await httpHarness(ctx);
  const none = await h.asDemo(`/api/historical/${VID}/NOPE`);
  assert.equal(none.status, 200);
  assert.equal(none.body, '[]\n');
  const util = await h.asDemo(`/api/historical/${VID}/*-OVM-Utilisation`);
  assert.equal(util.status, 200);
  assert.equal(util.body, canonicalJson(historicalRecordRows(await h.t.server.store.getHistorical(VID, '*-OVM-Utilisation', -1))));
});
