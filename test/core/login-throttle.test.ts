/** Failed-login throttling (src/core/login-throttle.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle } from '../../src/core/login-throttle.js';

const OPTS = { free: 3, windowSeconds: 60, baseDelaySeconds: 1, maxDelaySeconds: 4, lockoutAfter: 8 };

function fail(t: LoginThrottle, addr: string, n: number, now: number): void {
  for (let k = 0; k < n; k++) t.recordFailure(addr, now);
}

test('unknown addresses and the first `free` failures are allowed', () => {
  const t = new LoginThrottle(OPTS);
  assert.deepEqual(t.check('10.0.0.1', 0), { action: 'allow' });
  fail(t, '10.0.0.1', 2, 0);
  assert.deepEqual(t.check('10.0.0.1', 1), { action: 'allow' });
});

test('the delay doubles per failure beyond `free` and is capped', () => {
  const t = new LoginThrottle(OPTS);
  const seen: unknown[] = [];
  for (let n = 0; n < 8; n++) {
    seen.push(t.check('a', 1));
    t.recordFailure('a', 1);
  }
  assert.deepEqual(seen, [
    { action: 'allow' },
    { action: 'allow' },
    { action: 'allow' },
    { action: 'delay', seconds: 1 },
    { action: 'delay', seconds: 2 },
    { action: 'delay', seconds: 4 },
    { action: 'delay', seconds: 4 },
    { action: 'delay', seconds: 4 },
  ]);
});

test('refuse from lockoutAfter failures on', () => {
  const t = new LoginThrottle(OPTS);
  fail(t, 'a', 7, 0);
  assert.equal(t.check('a', 1).action, 'delay');
  t.recordFailure('a', 1);
  assert.deepEqual(t.check('a', 1), { action: 'refuse' });
  fail(t, 'a', 50, 2);
  assert.deepEqual(t.check('a', 2), { action: 'refuse' });
});

test('addresses are independent', () => {
  const t = new LoginThrottle(OPTS);
  fail(t, 'a', 8, 0);
  assert.deepEqual(t.check('a', 0), { action: 'refuse' });
  assert.deepEqual(t.check('b', 0), { action: 'allow' });
  assert.equal(t.size, 1);
});

test('the window runs from the first failure; after it everything is forgotten', () => {
  const t = new LoginThrottle(OPTS);
  fail(t, 'a', 8, 100);
  assert.deepEqual(t.check('a', 159), { action: 'refuse' });
  assert.deepEqual(t.check('a', 160), { action: 'allow' });
  assert.equal(t.size, 0);
  // A new failure starts a new window of one failure.
  t.recordFailure('a', 160);
  fail(t, 'a', 2, 161);
  assert.deepEqual(t.check('a', 162), { action: 'delay', seconds: 1 });
});

test('failures recorded after the window start a fresh entry', () => {
  const t = new LoginThrottle(OPTS);
  fail(t, 'a', 5, 0);
  t.recordFailure('a', 60);
  assert.deepEqual(t.check('a', 60), { action: 'allow' });
});

test('sweep drops expired entries only', () => {
  const t = new LoginThrottle(OPTS);
  t.recordFailure('old', 0);
  t.recordFailure('new', 30);
  assert.equal(t.size, 2);
  t.sweep(59);
  assert.equal(t.size, 2);
  t.sweep(60);
  assert.equal(t.size, 1);
  assert.deepEqual(t.check('new', 60), { action: 'allow' });
  t.sweep(90);
  assert.equal(t.size, 0);
});

test('defaults: 10 free, 1 s doubling to 30 s, refuse at 100, 600 s window', () => {
  assert.deepEqual(DEFAULT_LOGIN_THROTTLE, {
    free: 10,
    windowSeconds: 600,
    baseDelaySeconds: 1,
    maxDelaySeconds: 30,
    lockoutAfter: 100,
  });
  const t = new LoginThrottle();
  fail(t, 'a', 10, 0);
  assert.deepEqual(t.check('a', 0), { action: 'delay', seconds: 1 });
  fail(t, 'a', 5, 0);
  assert.deepEqual(t.check('a', 0), { action: 'delay', seconds: 30 });
  fail(t, 'a', 85, 0);
  assert.deepEqual(t.check('a', 0), { action: 'refuse' });
  assert.deepEqual(t.check('a', 600), { action: 'allow' });
});
