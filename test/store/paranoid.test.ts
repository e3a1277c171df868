import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed } from './helpers.js';

test('paranoid token: stored and buffered paranoid messages with another token become invalid', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  // committed: a paranoid S with token A, a plain D
  store.putCarMessage('DEMO1', { code: 'S', data: 'encS', time: 1, paranoid: true, ptoken: 'A' });
  store.putCarMessage('DEMO1', { code: 'D', data: 'plain', time: 1, paranoid: false, ptoken: '' });
  await store.flush();
  // buffered: a paranoid L with token A, a paranoid W already with token B
  store.putCarMessage('DEMO1', { code: 'L', data: 'encL', time: 2, paranoid: true, ptoken: 'A' });
  store.putCarMessage('DEMO1', { code: 'W', data: 'encW', time: 2, paranoid: true, ptoken: 'B' });

  await store.setParanoidToken('demo1', 'B');
  assert.equal((await store.getVehicle('DEMO1'))?.paranoidToken, 'B');

  // a message stored after the new token is valid
  store.putCarMessage('DEMO1', { code: 'Y', data: 'encY', time: 3, paranoid: true, ptoken: 'B' });

  const check = async (): Promise<void> => {
    const valid = (await store.getCarMessages('DEMO1')).map((m) => m.code).sort();
    assert.deepEqual(valid, ['D', 'W', 'Y']);
    const all = (await store.getCarMessages('DEMO1', true)).map((m) => [m.code, m.valid]).sort();
    assert.deepEqual(all, [
      ['D', true],
      ['L', false],
      ['S', false],
      ['W', true],
      ['Y', true],
    ]);
  };
  await check(); // before the flush
  await store.flush();
  await check(); // after it

  // a new message for an invalid code makes it valid again
  store.putCarMessage('DEMO1', { code: 'S', data: 'encS2', time: 4, paranoid: true, ptoken: 'B' });
  assert.ok((await store.getCarMessages('DEMO1')).some((m) => m.code === 'S' && m.data === 'encS2'));
});
