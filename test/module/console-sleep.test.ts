/**
 * `sleep <seconds>` (docs/protocol/module-console.md §8): no output, and the command really waits (fractions
 * allowed, capped), so a payload's later lines run after it and other work goes on meanwhile.
 * Asserts orders of events, not durations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

const after = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('sleep has no output and holds back the rest of its payload', async () => {
  const { run } = setup();
  const order: string[] = [];
  const slow = run('sleep 0.05\necho slow').then((out) => order.push(`slow:${out}`));
  const quick = run('echo quick').then((out) => order.push(`quick:${out}`));
  await Promise.all([slow, quick]);
  assert.deepEqual(order, ['quick:quick\n', 'slow:slow\n']);
});

test('a fractional sleep outlasts a shorter timer started after it', async () => {
  const { run } = setup();
  const order: string[] = [];
  const sleeping = run('sleep 0.08').then((out) => order.push(`sleep done (${JSON.stringify(out)})`));
  await after(10).then(() => order.push('timer'));
  await sleeping;
  assert.deepEqual(order, ['timer', 'sleep done ("")']);
});

test('sleep is capped at maxSleepSeconds', async () => {
  const { run } = setup({ maxSleepSeconds: 0.01 });
  const order: string[] = [];
  const sleeping = run('sleep 100').then(() => order.push('sleep'));
  const timer = after(300).then(() => order.push('timer'));
  await Promise.all([sleeping, timer]);
  assert.deepEqual(order, ['sleep', 'timer']);
});

test('sleep without a number does not wait; sleep needs exactly one argument', async () => {
  const { run } = setup();
  const order: string[] = [];
  const sleeping = run('sleep abc').then(() => order.push('sleep'));
  const timer = after(20).then(() => order.push('timer'));
  await Promise.all([sleeping, timer]);
  assert.deepEqual(order, ['sleep', 'timer']);
  assert.equal(await run('sleep'), 'Usage: sleep <seconds>\n');
  assert.equal(await run('sleep ?'), 'Usage: sleep <seconds>\n');
});

test('dispose() wakes a sleeping command', async () => {
  const { run, console } = setup();
  const order: string[] = [];
  const sleeping = run('sleep 30\necho woke').then((out) => order.push(out));
  await after(5);
  console.dispose();
  const timer = after(200).then(() => order.push('timer'));
  await Promise.all([sleeping, timer]);
  assert.deepEqual(order, ['woke\n', 'timer']);
});
