/**
 * The turn pacer (src/util/turn-pacer.ts) on an injected clock and an injected "next turn": no more
 * jobs under way than its concurrency, a turn given back to the event loop once the jobs started
 * in a turn have used its slice, every job run once in the order given, and a failing job rejects
 * its own promise without stopping the others.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnPacer } from '../../src/util/turn-pacer.js';

function harness(concurrency: number, sliceMs: number) {
  const clock = { ms: 0 };
  const turns: (() => void)[] = [];
  const pacer = new TurnPacer(concurrency, sliceMs, () => clock.ms, (next) => void turns.push(next));
  return { clock, turns, pacer };
}

const flush = () => new Promise<void>((r) => setImmediate(r));

test('at most `concurrency` jobs at once, in order, each once', async () => {
  const { turns, pacer } = harness(2, 5);
  const started: number[] = [];
  const release: (() => void)[] = [];
  let running = 0;
  let most = 0;
  const done = Array.from({ length: 6 }, (_, i) =>
    pacer.run(async () => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise<void>((r) => release.push(r));
      running--;
      return i * 10;
    }),
  );
  // nothing runs before the first turn is given
  assert.deepEqual(started, []);
  turns.shift()!();
  assert.deepEqual(started, [0, 1]);
  while (release.length > 0) {
    release.shift()!();
    await flush();
    while (turns.length > 0) turns.shift()!();
    await flush();
  }
  assert.deepEqual(await Promise.all(done), [0, 10, 20, 30, 40, 50]);
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  assert.equal(most, 2);
  assert.equal(pacer.waiting, 0);
});

test('the jobs of one turn stop at the slice: the rest wait for the next turn', async () => {
  const { clock, turns, pacer } = harness(1, 5);
  const started: number[] = [];
  // each job "takes" 2 ms of the clock
  const done = Array.from({ length: 7 }, (_, i) =>
    pacer.run(async () => {
      started.push(i);
      clock.ms += 2;
    }),
  );
  turns.shift()!();
  await flush();
  // started at 0, 2 and 4 ms into the turn; the fourth would begin at 6 ms: the slice (5 ms) is used
  assert.deepEqual(started, [0, 1, 2]);
  assert.equal(turns.length, 1, 'the next turn asked for');
  assert.equal(pacer.waiting, 4);
  turns.shift()!();
  await flush();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  turns.shift()!();
  await flush();
  await Promise.all(done);
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6]);
});

test('a job that throws or rejects fails alone', async () => {
  const { turns, pacer } = harness(1, 5);
  const a = pacer.run(() => {
    throw new Error('sync');
  });
  const b = pacer.run(() => Promise.reject(new Error('async')));
  const c = pacer.run(async () => 'ok');
  turns.shift()!();
  await assert.rejects(a, /sync/);
  await assert.rejects(b, /async/);
  while (turns.length > 0) turns.shift()!();
  assert.equal(await c, 'ok');
});
