/**
 * A NUL character in a text (issue 26): SQLite stores it as any other character, PostgreSQL
 * refuses it in a text value, so one car sending one failed every write batch it was in (and a
 * lookup of a name holding one was an error). Both stores accept the same values and give back
 * what was stored (src/store/postgres/pg-text.ts), and a batch holding one commits whole.
 * Runs on SQLite, and on PostgreSQL with VTS_TEST_DATABASE.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed } from './helpers.js';

const NUL = '\u0000';

test('a car message and a historical record holding a NUL (and U+FFFF) are stored and read back as they were, in one batch with other cars', async (t) => {
  const commits: number[] = [];
  const { store } = await freshStore(t, { onCommit: (entries) => commits.push(entries) });
  await seed(store, 'BAD1');
  await seed(store, 'GOOD1');
  const odd = `a${NUL}b\uffff0c\uffff${NUL}`;
  store.putCarMessage('BAD1', { code: 'S', data: odd, time: 10, paranoid: false, ptoken: '' }, 100);
  store.putCarMessage('GOOD1', { code: 'S', data: 'fine', time: 10, paranoid: false, ptoken: '' }, 100);
  const durable = store.addHistorical({ vehicleId: 'BAD1', type: `*-X${NUL}`, recordNumber: 1, time: 11, data: odd, expires: 1000 }, true);
  await durable;
  assert.deepEqual(commits, [3], 'one commit of the whole batch: the two messages (with their records) and the record');
  assert.equal((await store.getCarMessages('BAD1'))[0]?.data, odd);
  assert.equal((await store.getCarMessages('GOOD1'))[0]?.data, 'fine');
  const records = await store.getHistorical('BAD1', `*-x${NUL}`, 0);
  assert.deepEqual(records.map((r) => [r.type, r.data]), [[`*-X${NUL}`, odd]]);
  assert.deepEqual((await store.getHistorical('BAD1', 'S', 0)).map((r) => r.data), [odd]);
});

test('a user name holding a NUL is a name like any other: not found, added, found', async (t) => {
  const { store } = await freshStore(t);
  const name = `ev${NUL}il`;
  assert.equal(await store.getOwnerByName(name), undefined);
  assert.equal(await store.setOwnerRights(name, '*'), false);
  const owner = await store.addOwner(name, 'hash', '*');
  assert.equal(owner.name, name);
  assert.equal((await store.getOwnerByName(name.toUpperCase()))?.id, owner.id);
  assert.equal(await store.getOwnerByName('ev'), undefined);
});
