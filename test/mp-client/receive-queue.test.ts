/** The client's receive queue. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReceiveQueue } from '../../src/mp-client/receive-queue.js';
import { isMpClientError } from '../../src/mp-client/errors.js';

test('ReceiveQueue buffers until asked, then serves FIFO', async () => {
  const q = new ReceiveQueue<number>();
  q.push(1);
  q.push(2);
  assert.equal(q.size, 2);
  assert.equal(await q.next(10), 1);
  const p = q.next(1000);
  assert.equal(await p, 2);
  const later = q.next(1000);
  q.push(3);
  assert.equal(await later, 3);
});

test('ReceiveQueue: timeout, end, and buffered items after end', async () => {
  const q = new ReceiveQueue<string>();
  await assert.rejects(q.next(10), (e: unknown) => isMpClientError(e, 'MP_TIMEOUT'));
  q.push('a');
  const pendingAfter = q.next(10);
  assert.equal(await pendingAfter, 'a');
  const pending = q.next(Infinity);
  q.end('gone');
  await assert.rejects(pending, (e: unknown) => isMpClientError(e, 'MP_CLOSED'));
  assert.equal(q.ended, true);
  await assert.rejects(q.next(10), (e: unknown) => isMpClientError(e, 'MP_CLOSED'));
});

test('ReceiveQueue: a timed-out waiter does not swallow the next item', async () => {
  const q = new ReceiveQueue<number>();
  await assert.rejects(q.next(5));
  q.push(7);
  assert.equal(q.size, 1);
  assert.equal(await q.next(5), 7);
});

test('ReceiveQueue.collect waits, then drains; ends early on end()', async () => {
  const q = new ReceiveQueue<number>();
  q.push(1);
  setTimeout(() => q.push(2), 5);
  assert.deepEqual(await q.collect(40), [1, 2]);
  setTimeout(() => {
    q.push(3);
    q.end('bye');
  }, 5);
  const t0 = Date.now();
  assert.deepEqual(await q.collect(5000), [3]);
  assert.ok(Date.now() - t0 < 1000);
  assert.deepEqual(await q.collect(10), []);
});

test('ReceiveQueue async iteration stops at end', async () => {
  const q = new ReceiveQueue<number>();
  q.push(1);
  setTimeout(() => {
    q.push(2);
    q.end('done');
  }, 5);
  const got: number[] = [];
  for await (const n of q) got.push(n);
  assert.deepEqual(got, [1, 2]);
});
