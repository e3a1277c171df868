/** The bounded queue of expensive password checks (src/auth/check-queue.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChecksBusy, CheckQueue } from '../../src/auth/check-queue.js';
import { PasswordChecker } from '../../src/auth/password-checker.js';
import { hashPassword } from '../../src/auth/password.js';

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

test('at most `concurrency` checks run at once; the others wait and run in order', async () => {
  const q = new CheckQueue(2, 100);
  const gates = Array.from({ length: 6 }, gate);
  const started: number[] = [];
  const runs = gates.map((g, k) =>
    q.run(async () => {
      started.push(k);
      await g.wait;
      return k;
    }),
  );
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1]);
  assert.equal(q.queued, 4);
  gates[1]!.open();
  await runs[1];
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1, 2]);
  for (const g of gates) g.open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4, 5]);
  assert.equal(q.peak, 2);
  assert.equal(q.inFlight, 0);
});

test('beyond maxWaiting a check is refused as busy; a failing check frees its slot', async () => {
  const q = new CheckQueue(1, 1);
  const g = gate();
  const first = q.run(() => g.wait.then(() => {
    throw new Error('boom');
  }));
  const second = q.run(async () => 'second');
  await assert.rejects(q.run(async () => 'third'), ChecksBusy);
  g.open();
  await assert.rejects(first, /boom/);
  assert.equal(await second, 'second');
  assert.equal(q.inFlight, 0);
});

test('a flood of password checks runs through the queue: never more scrypt checks at once than allowed', async () => {
  const checker = new PasswordChecker({ concurrency: 2 });
  const hash = await hashPassword('right password', { N: 1024, r: 8, p: 1 });
  const results = await Promise.all(Array.from({ length: 40 }, (_, k) => checker.verify('demo', `guess ${k}`, 1, hash, 0)));
  assert.ok(results.every((r) => r === false));
  assert.equal(checker.queue.peak, 2);
  assert.equal(await checker.verify('demo', 'right password', 1, hash, 0), true);
  assert.equal(checker.size, 1, 'the right pair is remembered');
});
