/** The login throttle's buckets and trusted pairs (src/core/login-throttle.ts), on an injected clock. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DEFAULT_LOGIN_LIMITS, LoginThrottle, loginLimits, type Admission, type Ticket } from '../../src/core/login-throttle.js';
import { fuzzParams } from '../support/fuzz.js';

const MIN = 60_000;
const LIMITS = loginLimits({ pair: { burst: 3, perMinute: 1 }, address: { burst: 6, perMinute: 2 }, account: { burst: 5, perMinute: 1 } });

function ticket(a: Admission): Ticket {
  assert.ok(a.admitted, `expected admission, got ${JSON.stringify(a)}`);
  return a.ticket;
}

test('a pair may fail `burst` times; the next attempt is refused with the seconds until a refill', () => {
  const t = new LoginThrottle(LIMITS);
  for (let k = 0; k < 3; k++) t.failed(ticket(t.admit('10.0.0.1', 'user:demo', 0)));
  assert.deepEqual(t.admit('10.0.0.1', 'user:demo', 0), { admitted: false, retryAfterSeconds: 60, limit: 'pair', pending: false });
  assert.deepEqual(t.admit('10.0.0.1', 'user:demo', 30_000), { admitted: false, retryAfterSeconds: 30, limit: 'pair', pending: false });
  ticket(t.admit('10.0.0.1', 'user:demo', MIN)); // one attempt refilled after a minute
  assert.equal(t.admit('10.0.0.1', 'user:demo', MIN).admitted, false);
});

test('the attempt is counted when it is admitted, before any check: concurrent attempts cannot pass together', () => {
  const t = new LoginThrottle(LIMITS);
  // nothing is reported back yet (all checks still running): only `burst` are admitted, the others
  // are told to wait for those checks (they would get an attempt back if right)
  const answers = Array.from({ length: 1200 }, () => t.admit('10.0.0.1', 'user:demo', 0));
  assert.equal(answers.filter((a) => a.admitted).length, 3);
  assert.ok(answers.slice(3).every((a) => !a.admitted && a.pending));
  for (const a of answers) if (a.admitted) t.failed(a.ticket);
  const after = t.admit('10.0.0.1', 'user:demo', 0);
  assert.ok(!after.admitted && !after.pending, 'all three failed: now a refusal');
});

test('a right secret gives its attempt back: an honest client never uses up its budget', () => {
  const t = new LoginThrottle(LIMITS);
  for (let k = 0; k < 100; k++) t.succeeded(ticket(t.admit('10.0.0.1', 'user:demo', k)), k);
  assert.equal(t.admit('10.0.0.1', 'user:demo', 100).admitted, true);
});

test('the address bucket bounds guesses at many accounts from one address', () => {
  const t = new LoginThrottle(LIMITS);
  for (let k = 0; k < 6; k++) ticket(t.admit('10.0.0.1', `user:u${k}`, 0));
  const refused = t.admit('10.0.0.1', 'user:u99', 0);
  assert.equal(refused.admitted, false);
  assert.equal(!refused.admitted && refused.limit, 'address');
  assert.equal(t.admit('10.0.0.2', 'user:u99', 0).admitted, true, 'another address is not affected');
});

test('failures for a user from one address do not refuse that user from another address (the defaults)', () => {
  const t = new LoginThrottle(DEFAULT_LOGIN_LIMITS);
  for (let k = 0; k < 14; k++) t.admit('10.0.0.1', 'user:demo', 0);
  assert.equal(t.admit('10.0.0.1', 'user:demo', 0).admitted, false, 'the guessing pair is refused');
  assert.equal(t.admit('10.0.0.2', 'user:demo', 0).admitted, true, 'an honest client elsewhere is not');
});

test('the account bucket bounds guesses from many addresses; a pair that logged in before is not refused', () => {
  const t = new LoginThrottle(LIMITS);
  t.succeeded(ticket(t.admit('10.9.9.9', 'user:demo', 0)), 0); // the owner's phone, earlier
  for (let k = 0; k < 5; k++) ticket(t.admit(`10.0.0.${k}`, 'user:demo', MIN));
  const fresh = t.admit('10.0.1.1', 'user:demo', MIN);
  assert.equal(fresh.admitted, false);
  assert.equal(!fresh.admitted && fresh.limit, 'account');
  const known = ticket(t.admit('10.9.9.9', 'user:demo', MIN));
  assert.equal(known.trusted, true);
  t.succeeded(known, MIN);
  assert.equal(t.admit('10.0.1.1', 'user:other', MIN).admitted, true, 'other accounts are not affected');
});

test('a trusted pair is still bounded by its own pair bucket', () => {
  const t = new LoginThrottle(LIMITS);
  t.succeeded(ticket(t.admit('10.0.0.1', 'user:demo', 0)), 0);
  for (let k = 0; k < 3; k++) ticket(t.admit('10.0.0.1', 'user:demo', 1));
  assert.equal(t.admit('10.0.0.1', 'user:demo', 1).admitted, false);
});

test('trust ends after trustDays and when the account is forgotten', () => {
  const t = new LoginThrottle({ ...LIMITS, trustDays: 1 });
  t.succeeded(ticket(t.admit('10.0.0.1', 'user:demo', 0)), 0);
  assert.equal(ticket(t.admit('10.0.0.1', 'user:demo', 1)).trusted, true);
  assert.equal(ticket(t.admit('10.0.0.1', 'user:demo', 86_400_000)).trusted, false);
  t.succeeded(ticket(t.admit('10.0.0.2', 'user:demo', 0)), 0);
  t.forget('user:demo');
  assert.equal(ticket(t.admit('10.0.0.2', 'user:demo', 1)).trusted, false);
});

test('cancel gives the attempt back without trusting the pair; sweep forgets refilled buckets', () => {
  const t = new LoginThrottle(LIMITS);
  for (let k = 0; k < 3; k++) t.cancel(ticket(t.admit('10.0.0.1', 'user:demo', 0)), 0);
  const last = ticket(t.admit('10.0.0.1', 'user:demo', 0));
  assert.equal(last.trusted, false);
  t.failed(last);
  assert.ok(t.size > 0);
  t.sweep(10 * MIN);
  assert.equal(t.size, 0);
});

test('a bucket with burst 0 is off', () => {
  const t = new LoginThrottle(loginLimits({ pair: { burst: 0, perMinute: 0 }, address: { burst: 0, perMinute: 0 }, account: { burst: 0, perMinute: 0 } }));
  for (let k = 0; k < 1000; k++) ticket(t.admit('10.0.0.1', 'user:demo', 0));
});

test('property: within one minute a pair is never admitted more than burst + perMinute times', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ at: fc.integer({ min: 0, max: MIN }), ok: fc.boolean() }), { maxLength: 200 }),
      (attempts) => {
        const t = new LoginThrottle(LIMITS);
        let failedAdmissions = 0;
        for (const { at, ok } of attempts.sort((a, b) => a.at - b.at)) {
          const a = t.admit('10.0.0.1', 'user:demo', at);
          if (!a.admitted) continue;
          if (ok) t.succeeded(a.ticket, at);
          else failedAdmissions++;
        }
        return failedAdmissions <= LIMITS.pair.burst + LIMITS.pair.perMinute;
      },
    ),
    fuzzParams(500),
  );
});
