import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { freshStore, seed, sleep, SQLITE_FILE, SQLITE_ONLY } from './helpers.js';

const byCode = <T extends { code: string }>(a: T[]): T[] => [...a].sort((x, y) => (x.code < y.code ? -1 : 1));

test('car messages: upsert per code, case-sensitive codes, read-your-writes before the flush', { skip: SQLITE_ONLY }, async (t) => {
  const { dir, store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  store.putCarMessage('demo1', { code: 'S', data: 'first', time: 100, paranoid: false, ptoken: '' });
  store.putCarMessage('DEMO1', { code: 's', data: 'lower', time: 101, paranoid: false, ptoken: '' });
  store.putCarMessage('DEMO1', { code: 'S', data: 'second', time: 102, paranoid: false, ptoken: '' });

  // nothing in the file yet ...
  const other = new Database(join(dir, SQLITE_FILE), { readonly: true });
  t.after(() => other.close());
  assert.equal((other.prepare('SELECT count(*) AS n FROM car_messages').get() as { n: number }).n, 0);

  // ... but the store sees the buffered writes, coalesced
  assert.deepEqual(byCode(await store.getCarMessages('demo1')), [
    { code: 'S', data: 'second', time: 102, paranoid: false, ptoken: '', valid: true },
    { code: 's', data: 'lower', time: 101, paranoid: false, ptoken: '', valid: true },
  ]);
  assert.equal((await store.getVehicle('DEMO1'))?.lastUpdate, 102);
  assert.equal((await store.listVehicles())[0]?.lastUpdate, 102);

  await store.flush();
  assert.deepEqual(
    other.prepare('SELECT code, data, time FROM car_messages ORDER BY code').all(),
    [
      { code: 'S', data: 'second', time: 102 },
      { code: 's', data: 'lower', time: 101 },
    ],
  );
  assert.equal((other.prepare("SELECT last_update FROM vehicles WHERE id = 'DEMO1'").get() as { last_update: number }).last_update, 102);

  // overwrite after the flush: one row per code
  store.putCarMessage('DEMO1', { code: 'S', data: 'third', time: 103, paranoid: false, ptoken: '' });
  await store.flush();
  assert.equal((other.prepare('SELECT count(*) AS n FROM car_messages').get() as { n: number }).n, 2);
  assert.equal((await store.getCarMessages('DEMO1')).find((m) => m.code === 'S')?.data, 'third');
});

test('car messages: committed by the timer and durable after reopening the file', { skip: SQLITE_ONLY }, async (t) => {
  const { dir, store } = await freshStore(t, { writeBehindMs: 20 });
  await seed(store);
  store.putCarMessage('DEMO1', { code: 'D', data: 'd,a,t,a', time: 200, paranoid: false, ptoken: '' });
  await sleep(150);
  const other = new Database(join(dir, SQLITE_FILE), { readonly: true });
  assert.equal((other.prepare("SELECT data FROM car_messages WHERE code = 'D'").get() as { data: string }).data, 'd,a,t,a');
  other.close();

  store.putCarMessage('DEMO1', { code: 'L', data: 'loc', time: 201, paranoid: false, ptoken: '' });
  await store.close(); // flushes
  const reopened = await openStore(dir);
  t.after(() => reopened.close().catch(() => undefined));
  assert.deepEqual(
    byCode(await reopened.getCarMessages('DEMO1')).map((m) => [m.code, m.data, m.time]),
    [
      ['D', 'd,a,t,a', 200],
      ['L', 'loc', 201],
    ],
  );
  assert.equal((await reopened.getVehicle('DEMO1'))?.lastUpdate, 201);
});

test('car messages: messages of an unknown vehicle are dropped without failing the batch', async (t) => {
  const errors: unknown[] = [];
  const { store } = await freshStore(t, { onBackgroundError: (e) => errors.push(e) });
  await seed(store);
  store.putCarMessage('GHOST', { code: 'S', data: 'x', time: 1, paranoid: false, ptoken: '' });
  store.putCarMessage('DEMO1', { code: 'S', data: 'y', time: 1, paranoid: false, ptoken: '' });
  await store.flush();
  assert.deepEqual(errors, []);
  assert.deepEqual(await store.getCarMessages('GHOST'), []);
  assert.equal((await store.getCarMessages('DEMO1'))[0]?.data, 'y');
});
