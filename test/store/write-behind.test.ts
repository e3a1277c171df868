import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBehindBuffer, type WriteBatch } from '../../src/store/write-behind.js';
import { sleep } from './helpers.js';

function recorder(delayMs = 30, fail?: () => boolean, retryDelaysMs: number[] = []) {
  const batches: WriteBatch[] = [];
  const errors: unknown[] = [];
  const buffer = new WriteBehindBuffer(
    (b) => {
      if (fail?.()) throw new Error('commit failed');
      batches.push(b);
    },
    { delayMs, onBackgroundError: (e) => errors.push(e), retryDelaysMs },
  );
  return { buffer, batches, errors };
}

const msg = (code: string, data: string, time = 1) => ({ code, data, time, paranoid: false, ptoken: '' });

test('write-behind: one commit at most delayMs after the first write, coalesced', async () => {
  const { buffer, batches } = recorder(30);
  buffer.putCarMessage('V', msg('S', 'a', 1));
  buffer.putCarMessage('V', msg('S', 'b', 2));
  buffer.putCarMessage('V', msg('D', 'c', 3));
  buffer.addUtilisation([{ vehicleId: 'V', day: 0, clientType: 'C', rx: 1, tx: 2 }]);
  buffer.addUtilisation([{ vehicleId: 'V', day: 0, clientType: 'C', rx: 10, tx: 20 }]);
  buffer.touchApiToken(1, 'h', 5);
  buffer.touchApiToken(1, 'h', 4);
  assert.equal(batches.length, 0);
  await sleep(80);
  assert.equal(batches.length, 1);
  const b = batches[0]!;
  assert.deepEqual([...b.carMessages.get('V')!.values()].map((m) => m.data), ['b', 'c']);
  assert.equal(b.lastUpdates.get('V'), 3);
  assert.deepEqual([...b.utilisation.values()], [{ vehicleId: 'V', day: 0, clientType: 'C', rx: 11, tx: 22 }]);
  assert.deepEqual([...b.tokenTouches.values()], [{ ownerId: 1, tokenHash: 'h', time: 5 }]);
  assert.ok(buffer.isEmpty);
  await sleep(50);
  assert.equal(batches.length, 1); // nothing pending, no empty commit
});

test('write-behind: durable writes of one tick share one commit and resolve after it', async () => {
  const { buffer, batches } = recorder(10_000);
  const rec = (n: number) => ({ vehicleId: 'V', type: 'T', recordNumber: n, time: 1, data: '', expires: 2 });
  buffer.addHistorical(rec(0));
  const done = [buffer.addHistoricalDurable(rec(1)), buffer.addHistoricalDurable(rec(2))];
  assert.equal(batches.length, 0);
  await Promise.all(done);
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.historical.size, 3);
});

test('write-behind: a failed background commit is reported and the durable writers reject', async () => {
  let failing = true;
  const { buffer, batches, errors } = recorder(10, () => failing);
  buffer.putCarMessage('V', msg('S', 'lost'));
  const durable = buffer.addHistoricalDurable({ vehicleId: 'V', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 });
  await assert.rejects(durable, /commit failed/);
  await sleep(30);
  assert.equal(errors.length, 1);
  failing = false;
  buffer.putCarMessage('V', msg('S', 'kept'));
  await buffer.flush();
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.carMessages.get('V')!.get('S')!.data, 'kept');
});

test('write-behind: discard and invalidate edit the pending writes', async () => {
  const { buffer, batches } = recorder(10_000);
  buffer.putCarMessage('V', { code: 'S', data: 'p', time: 7, paranoid: true, ptoken: 'A' });
  buffer.putCarMessage('V', msg('D', 'plain'));
  buffer.invalidateParanoid('V', 'B');
  buffer.putCarMessage('W', msg('D', 'other'));
  await buffer.flush();
  assert.deepEqual(
    [...batches[0]!.carMessages.get('V')!.values()].map((m) => [m.code, m.valid]),
    [
      ['S', false],
      ['D', true],
    ],
  );
  buffer.putCarMessage('V', msg('S', 'gone'));
  buffer.touchApiToken(1, 'h', 9);
  buffer.discardVehicle('V');
  buffer.discardTokenTouches(1);
  assert.ok(buffer.isEmpty);
  assert.equal(buffer.committed(), null, 'nothing left to wait for');
  await buffer.flush();
  assert.equal(batches.length, 1, 'no empty commit');
});

test('write-behind: an asynchronous commit: waiters wait for it, and commits are serialised', async () => {
  const order: string[] = [];
  let release!: () => void;
  const buffer = new WriteBehindBuffer(
    async (b) => {
      const data = b.carMessages.get('V')?.get('S')?.data ?? '';
      order.push('start ' + data);
      if (data === 'one') await new Promise<void>((r) => (release = r));
      order.push('end ' + data);
    },
    { delayMs: 10_000 },
  );
  buffer.putCarMessage('V', msg('S', 'one'));
  const first = buffer.flush();
  await sleep(5);
  // in flight: a read of V waits for it, one of another vehicle does not
  const readV = buffer.committedFor('V');
  assert.ok(readV);
  assert.equal(buffer.committedFor('W'), null);
  void readV.then(() => order.push('read V'));
  buffer.afterCommit(() => order.push('after one'));
  buffer.putCarMessage('V', msg('S', 'two'));
  buffer.afterCommit(() => order.push('after two'));
  const second = buffer.flush();
  await sleep(5);
  assert.deepEqual(order, ['start one']);
  release();
  await Promise.all([first, second]);
  await sleep(1);
  assert.deepEqual(order, ['start one', 'end one', 'after one', 'read V', 'start two', 'end two', 'after two']);
});

test('write-behind: a failed commit is tried again; waiters and callbacks go on only after it committed', async () => {
  let failures = 2;
  const { buffer, batches, errors } = recorder(10_000, () => failures-- > 0, [1, 1, 1]);
  const order: string[] = [];
  buffer.putCarMessage('V', msg('S', 'kept'));
  const durable = buffer.addHistoricalDurable({ vehicleId: 'V', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 });
  buffer.afterCommit(() => order.push(`callback after ${batches.length} commit(s)`));
  await durable;
  await buffer.idle();
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.carMessages.get('V')!.get('S')!.data, 'kept');
  assert.deepEqual(order, ['callback after 1 commit(s)']);
  assert.equal(errors.length, 2, 'each failed try is reported');
  assert.match(String(errors[0]), /trying again in 1 ms/);
});
