/**
 * The HTTP rate limiter (docs/protocol/http-api-v2.md §1.1), pure (the clock is passed in): a new address
 * starts with `burst` (its first request is not charged), each later request costs one and is
 * refused when the quota reaches 0, the minute tick adds `perMinute` up to `max` and forgets
 * addresses idle for `expireSeconds` (refused requests count as activity); `burst` 0 is off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RATE_LIMIT, RateLimiter, type RateLimitOptions } from '../../src/core/rate-limit.js';

const opts = (o: Partial<RateLimitOptions>): RateLimitOptions => ({ ...DEFAULT_RATE_LIMIT, ...o });

/** The results of `n` requests from `address` at time `now`. */
function hits(rl: RateLimiter, n: number, now = 0, address = '10.0.0.1'): boolean[] {
  return Array.from({ length: n }, () => rl.hit(address, now));
}

test('the defaults are those of REF', () => {
  assert.deepEqual(DEFAULT_RATE_LIMIT, { burst: 120, perMinute: 60, max: 240, expireSeconds: 300, delaySeconds: 20 });
  const rl = new RateLimiter();
  assert.equal(rl.enabled, true);
  const r = hits(rl, 122);
  assert.equal(r.indexOf(false), 120, 'the 121st request is the first refused');
  assert.deepEqual(r.slice(120), [false, false]);
});

test('a burst of 3: the first request is not charged, so three pass and the fourth is refused', () => {
  const rl = new RateLimiter(opts({ burst: 3 }));
  assert.deepEqual(hits(rl, 6), [true, true, true, false, false, false]);
  assert.equal(rl.size, 1);
});

test('a burst of 1 lets exactly the first request through', () => {
  const rl = new RateLimiter(opts({ burst: 1 }));
  assert.deepEqual(hits(rl, 3), [true, false, false]);
});

test('addresses are counted separately', () => {
  const rl = new RateLimiter(opts({ burst: 2 }));
  assert.deepEqual(hits(rl, 3, 0, 'a'), [true, true, false]);
  assert.deepEqual(hits(rl, 3, 0, 'b'), [true, true, false]);
  assert.equal(rl.size, 2);
});

test('the tick refills perMinute; the quota never drops below 0 however many requests were refused', () => {
  const rl = new RateLimiter(opts({ burst: 2, perMinute: 4, max: 100 }));
  assert.deepEqual(hits(rl, 10), [true, true, ...Array<boolean>(8).fill(false)]);
  rl.tick(60);
  // quota 4: each request costs one before the check, so three pass
  assert.deepEqual(hits(rl, 5, 60), [true, true, true, false, false]);
  rl.tick(120);
  rl.tick(180);
  assert.deepEqual(hits(rl, 9, 180), [...Array<boolean>(7).fill(true), false, false]);
});

test('the quota is capped at max', () => {
  const rl = new RateLimiter(opts({ burst: 2, perMinute: 10, max: 5, expireSeconds: 10_000 }));
  assert.equal(rl.hit('a', 0), true); // quota 2, not charged
  for (let k = 1; k <= 10; k++) rl.tick(k * 60); // would be 102 without the cap
  assert.deepEqual(hits(rl, 6, 600, 'a'), [true, true, true, true, false, false]);
});

test('an address idle for expireSeconds is forgotten at the tick and starts over with burst', () => {
  const rl = new RateLimiter(opts({ burst: 2, perMinute: 1, max: 240, expireSeconds: 300 }));
  assert.deepEqual(hits(rl, 3, 1000), [true, true, false]);
  rl.tick(1299); // last request at 1000: expires at 1300
  assert.equal(rl.size, 1);
  // still known: perMinute 1 brought the quota to 1, and a request costs one
  assert.equal(rl.hit('10.0.0.1', 1299), false);
  rl.tick(1598);
  assert.equal(rl.size, 1, 'the refused request at 1299 counted as activity (expires 1599)');
  rl.tick(1599);
  assert.equal(rl.size, 0);
  assert.deepEqual(hits(rl, 3, 1600), [true, true, false], 'a fresh entry with the full burst');
});

test('without a tick nothing is refilled or forgotten, however much time passes', () => {
  const rl = new RateLimiter(opts({ burst: 2, expireSeconds: 300 }));
  assert.deepEqual(hits(rl, 2, 0), [true, true]);
  assert.equal(rl.hit('10.0.0.1', 100_000), false);
});

test('burst 0 turns the limiter off: every request passes and nothing is remembered', () => {
  const rl = new RateLimiter(opts({ burst: 0 }));
  assert.equal(rl.enabled, false);
  assert.ok(hits(rl, 1000).every((ok) => ok));
  assert.equal(rl.size, 0);
  rl.tick(60);
  assert.equal(rl.size, 0);
});
