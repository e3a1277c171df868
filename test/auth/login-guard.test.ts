/** The login guard (src/auth/login-guard.ts): the throttle around every secret check. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChecksBusy } from '../../src/auth/check-queue.js';
import { LoginGuard } from '../../src/auth/login-guard.js';
import { loginLimits } from '../../src/core/login-throttle.js';

const LIMITS = loginLimits({ pair: { burst: 3, perMinute: 1 } });
const tick = () => new Promise<void>((r) => setImmediate(r));

test('many honest clients of one address logging in at once are all checked and admitted', async () => {
  const guard = new LoginGuard(LIMITS, () => 0);
  let running = 0;
  let peak = 0;
  const right = async () => {
    peak = Math.max(peak, ++running);
    await tick();
    running--;
    return 'ok';
  };
  const outcomes = await Promise.all(Array.from({ length: 40 }, () => guard.attempt('10.0.0.1', 'user:demo', right)));
  assert.ok(outcomes.every((o) => o.ok), JSON.stringify(outcomes.find((o) => !o.ok)));
  assert.ok(peak <= 3, `never more checks at once than the budget (${peak})`);
});

test('concurrent wrong attempts: only the budget is checked, the others wait for it and are then refused', async () => {
  const guard = new LoginGuard(LIMITS, () => 0);
  let checks = 0;
  const wrong = async () => {
    checks++;
    await tick();
    return null;
  };
  const outcomes = await Promise.all(Array.from({ length: 1200 }, () => guard.attempt('10.0.0.1', 'user:demo', wrong)));
  assert.equal(checks, 3);
  assert.equal(outcomes.filter((o) => !o.ok && o.throttled).length, 1197);
  assert.equal(guard.failures, 3);
});

test('a right secret among wrong ones in flight: the right one gives its attempt back to a waiting one', async () => {
  const guard = new LoginGuard(LIMITS, () => 0);
  const answers = ['right', null, null, 'right'];
  let k = 0;
  const check = async () => {
    const a = answers[k++] ?? null;
    await tick();
    return a;
  };
  const outcomes = await Promise.all(Array.from({ length: 4 }, () => guard.attempt('10.0.0.1', 'user:demo', check)));
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? 'ok' : o.throttled ? 'throttled' : 'failed')),
    ['ok', 'failed', 'failed', 'ok'],
  );
});

test('a busy check queue is answered as throttled and its attempt given back; other errors pass through', async () => {
  const guard = new LoginGuard(LIMITS, () => 0);
  const busy = await guard.attempt('10.0.0.1', 'user:demo', () => Promise.reject(new ChecksBusy()));
  assert.deepEqual(busy, { ok: false, throttled: true, retryAfterSeconds: 1, limit: 'checks' });
  await assert.rejects(guard.attempt('10.0.0.1', 'user:demo', () => Promise.reject(new Error('store down'))), /store down/);
  for (let n = 0; n < 3; n++) assert.equal((await guard.attempt('10.0.0.1', 'user:demo', async () => null)).ok, false);
  const after = await guard.attempt('10.0.0.1', 'user:demo', async () => 'x');
  assert.equal(!after.ok && after.throttled, true, 'the budget of 3 was not used by the busy and failed-check attempts');
});

test('addresses count as the connection cap counts them: IPv6 by its /64, IPv4-mapped as IPv4', async () => {
  const guard = new LoginGuard(LIMITS, () => 0);
  const wrong = async () => null;
  for (const a of ['2001:db8:1:2::1', '2001:db8:1:2::abcd', '2001:db8:1:2:ffff::9']) await guard.attempt(a, 'user:demo', wrong);
  const same64 = await guard.attempt('2001:db8:1:2::77', 'user:demo', async () => 'ok');
  assert.equal(!same64.ok && same64.throttled, true, 'another address of the same /64 is the same client');
  assert.equal((await guard.attempt('2001:db8:1:3::1', 'user:demo', async () => 'ok')).ok, true, 'another /64');
  for (let n = 0; n < 3; n++) await guard.attempt('::ffff:10.0.0.1', 'user:demo', wrong);
  const v4 = await guard.attempt('10.0.0.1', 'user:demo', async () => 'ok');
  assert.equal(!v4.ok && v4.throttled, true, 'the IPv4-mapped form is the same client');
});
