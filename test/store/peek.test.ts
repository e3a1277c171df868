/**
 * The store's reads at once from memory (`peekVehicle`, `peekCarMessages`): on SQLite, what the
 * read cache holds when nothing of the vehicle waits in the write-behind buffer, equal to what the
 * awaited read answers; undefined otherwise (then the awaited read is asked). The PostgreSQL store
 * keeps no read cache: always undefined.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed, sleep } from './helpers.js';

const msg = (data: string, time: number) => ({ code: 'S', data, time, paranoid: false, ptoken: '' });

test('a peek answers what the awaited read answered, and nothing while a write of the vehicle is buffered', async (t) => {
  const { store, database } = await freshStore(t, { writeBehindMs: 5 });
  await seed(store);
  const cached = database === undefined;
  store.putCarMessage('DEMO1', msg('1', 100));
  assert.equal(store.peekCarMessages('DEMO1'), undefined, 'buffered');
  assert.equal(store.peekVehicle('DEMO1'), undefined, 'its last update buffered');
  await store.flush();
  const vehicle = await store.getVehicle('DEMO1');
  const messages = await store.getCarMessages('DEMO1');
  assert.equal(messages[0]?.data, '1');
  assert.deepEqual(store.peekVehicle('demo1'), cached ? vehicle : undefined);
  assert.deepEqual(store.peekCarMessages('demo1'), cached ? messages : undefined);
  // another vehicle's write does not stand in the way
  await seed(store, 'DEMO2');
  store.putCarMessage('DEMO2', msg('2', 100));
  assert.deepEqual(store.peekCarMessages('DEMO1'), cached ? messages : undefined);
  // never read: not in memory
  assert.equal(store.peekVehicle('NOSUCH'), undefined);
  await store.close();
  assert.equal(store.peekVehicle('DEMO1'), undefined, 'closed');
  assert.equal(store.peekCarMessages('DEMO1'), undefined, 'closed');
});

test('a peek does not answer what another process changed since', async (t) => {
  const { open, store } = await freshStore(t, { writeBehindMs: 5 });
  await seed(store);
  await store.getVehicle('DEMO1');
  await store.getCarMessages('DEMO1');
  const cli = await open();
  try {
    assert.ok(await cli.removeVehicle('DEMO1'));
  } finally {
    await cli.close();
  }
  await sleep(2); // the store looks for other processes' commits at most once a millisecond
  assert.equal(store.peekVehicle('DEMO1'), undefined);
  assert.equal(store.peekCarMessages('DEMO1'), undefined);
  assert.equal(await store.getVehicle('DEMO1'), undefined);
});
