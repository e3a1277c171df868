/**
 * A database that cannot take the commit (here SQLite with a full disk: SQLITE_FULL) holds the
 * buffered writes: what waits for them (forwarding) waits, reads of them are refused rather than
 * shown stale or from memory, the commit is tried again until it goes in, and then all goes on in
 * order. The same rule as on PostgreSQL (test/store/postgres-outage.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { isVtsError } from '../../src/errors.js';
import { freshStore, seed, sleep, SQLITE_ONLY } from './helpers.js';

const msg = (data: string, time: number) => ({ code: 'S', data, time, paranoid: false, ptoken: '' });

test('SQLite, disk full: the writes are held, nothing is passed on nor read, then all goes on in order', { skip: SQLITE_ONLY }, async (t) => {
  const errors: unknown[] = [];
  let resumed = 0;
  const { store } = await freshStore(t, { writeBehindMs: 60_000, onBackgroundError: (e) => errors.push(e), onResumed: () => resumed++ });
  await seed(store);
  store.putCarMessage('DEMO1', msg('S#1', 100));
  await store.flush();
  // the file may grow no further: the next commit fails with SQLITE_FULL
  const db = (store as unknown as { db: Database.Database }).db;
  const pages = db.pragma('page_count', { simple: true }) as number;
  db.pragma(`max_page_count = ${pages}`);

  const seen: string[] = [];
  const big = 'x'.repeat(64 * 1024);
  store.putCarMessage('DEMO1', msg(`S#2 ${big}`, 101));
  store.afterCommit(() => seen.push('S#2'), 'DEMO1');
  // held once the scheduled tries have failed
  while (!errors.some((e) => /does not answer/.test(String(e))) && seen.length === 0) await sleep(20);
  assert.equal(seen.length, 0, 'nothing of the held write is passed on');
  assert.match(String(errors.find((e) => /does not answer/.test(String(e)))), /full/i);
  assert.equal(seen.length, 0, 'nothing of the held write is passed on');
  await assert.rejects(store.getCarMessages('DEMO1'), (err: unknown) => isVtsError(err, 'VTS_ERR_STORE_UNAVAILABLE'));
  store.putCarMessage('DEMO1', msg('S#3', 102));
  store.afterCommit(() => seen.push('S#3'), 'DEMO1');
  assert.equal(seen.length, 0);

  db.pragma('max_page_count = 1073741823');
  while (seen.length < 2) await sleep(20);
  assert.deepEqual(seen, ['S#2', 'S#3']);
  assert.equal(resumed, 1);
  assert.deepEqual((await store.getCarMessages('DEMO1')).map((m) => m.data), ['S#3']);
});
