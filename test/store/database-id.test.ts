/**
 * Store.databaseId: made once when the database is created, the same for every process that opens
 * it and across restarts, another for another database (the cluster compares them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPlace } from './helpers.js';

test('a database keeps its id across opens; another database has another', async (t) => {
  const place = freshPlace(t);
  const first = await place.open();
  const id = await first.databaseId();
  assert.match(id, /^[0-9a-f]{32}$/);
  const second = await place.open();
  assert.equal(await second.databaseId(), id, 'another process on the same database');
  await first.close();
  await second.close();
  assert.equal(await (await place.open()).databaseId(), id, 'after a restart');

  const other = await freshPlace(t).open();
  assert.notEqual(await other.databaseId(), id);
});
