/**
 * The reconnect back-off of the module's server links as pure computation, with an injected random
 * source: the step doubles from the minimum and stops at the cap; the jitter takes a random share
 * of at most `jitter` off each step (never more than the cap, never less than (1 − jitter) × min);
 * a reset starts again at the minimum; bad shapes are configuration errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { Backoff, backoffDelay, backoffShape, DEFAULT_BACKOFF, secondsLeft } from '../../src/module/links/backoff.js';

const shape = backoffShape();

test('without jitter drawn (r = 0) the delay doubles from 1 s and stops at 60 s', () => {
  const steps = Array.from({ length: 9 }, (_, n) => backoffDelay(n, shape, 0));
  assert.deepEqual(steps, [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  assert.equal(backoffDelay(10_000, shape, 0), 60_000, 'a long outage stays at the cap');
  assert.equal(backoffDelay(-3, shape, 0), 1000, 'a negative attempt counts as the first');
});

test('the jitter takes at most 20 % off each step: the cap is a true upper bound', () => {
  assert.equal(backoffDelay(0, shape, 0.5), 900);
  assert.equal(backoffDelay(0, shape, 0.999_999), 800);
  assert.equal(backoffDelay(6, shape, 0.5), 54_000);
  for (let n = 0; n < 12; n++) {
    const step = Math.min(60_000, 1000 * 2 ** n);
    for (const r of [0, 0.1, 0.25, 0.5, 0.75, 0.999]) {
      const d = backoffDelay(n, shape, r);
      assert.ok(d <= step && d >= 0.8 * step, `attempt ${n}, r ${r}: ${d} within [${0.8 * step}, ${step}]`);
    }
  }
  assert.equal(backoffDelay(0, shape, 7), 800, 'a random source out of range is clamped');
  assert.equal(backoffDelay(0, backoffShape({ jitter: 1 }), 0.5), 500, '"full jitter"');
  assert.equal(backoffDelay(3, backoffShape({ jitter: 0 }), 0.9), 8000, 'no jitter');
});

test('Backoff: steps up with each failure, draws from the injected random source, resets after a login', () => {
  const draws = [0, 0.5, 1 - 1e-9, 0.25];
  let i = 0;
  const b = new Backoff({ minMs: 200, maxMs: 1000, random: () => draws[i++ % draws.length]! });
  assert.equal(b.attempts, 0);
  assert.deepEqual([b.next(), b.next(), b.next(), b.next(), b.next()], [200, 360, 640, 950, 1000]);
  assert.equal(b.attempts, 5);
  b.reset();
  assert.equal(b.attempts, 0);
  assert.equal(b.next(), 180, 'back at the minimum (r = 0.5)');
});

test('the defaults are 1 s to 60 s with 20 % jitter; a minimum above 60 s raises the default cap to it', () => {
  assert.deepEqual(backoffShape(), { ...DEFAULT_BACKOFF });
  assert.deepEqual(backoffShape({ minMs: 90_000 }), { minMs: 90_000, maxMs: 90_000, jitter: 0.2 });
  assert.deepEqual(backoffShape({ minMs: 50, maxMs: 50 }), { minMs: 50, maxMs: 50, jitter: 0.2 });
});

test('a bad shape is a configuration error', () => {
  const config = (err: unknown) => isVtsError(err, 'VTS_ERR_CONFIG');
  assert.throws(() => backoffShape({ minMs: 0 }), config);
  assert.throws(() => backoffShape({ minMs: -1 }), config);
  assert.throws(() => backoffShape({ minMs: Number.NaN }), config);
  assert.throws(() => backoffShape({ minMs: 2000, maxMs: 1000 }), config);
  assert.throws(() => backoffShape({ maxMs: Number.POSITIVE_INFINITY }), config);
  assert.throws(() => backoffShape({ jitter: 1.5 }), config);
  assert.throws(() => new Backoff({ jitter: -0.1 }), config);
});

test('secondsLeft: whole seconds, rounded up, never negative', () => {
  assert.equal(secondsLeft(10_000, 10_000), 0);
  assert.equal(secondsLeft(10_001, 10_000), 1);
  assert.equal(secondsLeft(12_000, 10_000), 2);
  assert.equal(secondsLeft(5_000, 10_000), 0);
});
