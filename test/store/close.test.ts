import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { freshPlace, seed } from './helpers.js';

const closedError = (e: unknown): boolean => isVtsError(e, 'VTS_ERR_STORE_CLOSED');

test('close flushes, then every method rejects or throws VTS_ERR_STORE_CLOSED', async (t) => {
  const place = freshPlace(t);
  const store = await place.open({ writeBehindMs: 60_000 });
  const { owner } = await seed(store);
  store.putCarMessage('DEMO1', { code: 'S', data: 'last words', time: 5, paranoid: false, ptoken: '' });
  store.addUtilisation([{ vehicleId: 'DEMO1', day: 0, clientType: 'C', rx: 1, tx: 1 }]);
  await store.close();

  await assert.rejects(store.getOwnerByName('demo'), closedError);
  await assert.rejects(store.listVehicles(), closedError);
  await assert.rejects(store.getCarMessages('DEMO1'), closedError);
  await assert.rejects(store.addHistorical({ vehicleId: 'DEMO1', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 }), closedError);
  await assert.rejects(store.summarizeHistorical('DEMO1', 0), closedError);
  await assert.rejects(store.flush(), closedError);
  await assert.rejects(store.close(), closedError);
  assert.throws(() => store.putCarMessage('DEMO1', { code: 'S', data: '', time: 1, paranoid: false, ptoken: '' }), closedError);
  assert.throws(() => store.addUtilisation([]), closedError);
  assert.throws(() => store.touchApiToken(owner.id, 'x', 1), closedError);

  const reopened = await place.open();
  assert.equal((await reopened.getCarMessages('DEMO1'))[0]?.data, 'last words');
  assert.equal((await reopened.getUtilisation('DEMO1', 0)).length, 1);
});

test('a read waiting for a flush when the store closes rejects cleanly', async (t) => {
  const store = await freshPlace(t).open();
  await seed(store);
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 });
  const read = store.getHistorical('DEMO1', 'T', 0);
  const closing = store.close();
  await closing;
  // the read either saw the data before close or was refused; it never touches a closed handle
  await read.then(
    (rows) => assert.equal(rows.length, 1),
    (e) => assert.ok(closedError(e), String(e)),
  );
});
