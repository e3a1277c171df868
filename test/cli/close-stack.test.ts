/**
 * The stack of closers that `startServer` builds (src/server/close-stack.ts): last pushed closes first, a
 * group closes its members together at the place it took, a failing closer does not stop the rest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { CloseStack } from '../../src/server/close-stack.js';
import { createLogger } from '../../src/util/log.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('closes the last pushed first, each after the one before; a group at the place it took', async () => {
  const done: string[] = [];
  const closer = (name: string) => async () => {
    done.push(`${name} begins`);
    await tick();
    done.push(`${name} ends`);
  };
  const stack = new CloseStack();
  stack.push('a', closer('a'));
  const group = stack.group('g');
  group.add('g1', closer('g1'));
  stack.push('b', closer('b'));
  group.add('g2', closer('g2')); // added after b: still closes at the group's place, after b
  stack.push('c', () => void done.push('c'));
  await stack.close();
  assert.deepEqual(done, ['c', 'b begins', 'b ends', 'g1 begins', 'g2 begins', 'g1 ends', 'g2 ends', 'a begins', 'a ends']);
  done.length = 0;
  await stack.close();
  assert.deepEqual(done, [], 'closed once');
});

test('a closer that fails: the others still close, the first failure is thrown at the end', async () => {
  const done: string[] = [];
  const stack = new CloseStack();
  stack.push('a', () => void done.push('a'));
  stack.push('b', () => Promise.reject(new Error('b failed')));
  stack.push('c', () => {
    throw new Error('c failed');
  });
  const failed: string[] = [];
  await assert.rejects(
    stack.close((name) => failed.push(name)),
    /c failed/,
  );
  assert.deepEqual(done, ['a']);
  assert.deepEqual(failed, ['c', 'b']);
});

test('abandon: closes everything, logs a failing closer, and throws the start\'s own error', async () => {
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString('utf8')), cb()) }));
  const done: string[] = [];
  const stack = new CloseStack();
  stack.push('the store', () => void done.push('store'));
  stack.push('the listener', () => Promise.reject(new Error('close failed')));
  const started = new Error('port in use');
  await assert.rejects(stack.abandon(started, log), (err) => err === started);
  assert.deepEqual(done, ['store']);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /closing the listener after a failed start failed/);
});
