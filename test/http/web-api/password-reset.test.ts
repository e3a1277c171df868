/**
 * Password reset (docs/accounts.md "Sign-up and recovery") on a real server with a real SMTP
 * receiver: 202 whatever the address, a mail only to an account's address, a single-use link that
 * sets the password and ends every session of the account (web and API); the throttle on the
 * mailing calls and on token guesses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signupHarness, tokenOf, type SignupHarness } from '../../support/signup.js';

async function verifiedAlice(s: SignupHarness): Promise<void> {
  await s.post('/api/account', { username: 'alice', email: 'alice@example.org', password: 'old password' });
  const token = tokenOf(await s.mail(s.sink.messages.length + 1), 'verify');
  assert.equal((await s.post('/api/account/verify', { token })).status, 200);
}

test('reset: 202 for any address, a mail only for an account; the link sets the password once and ends every session', async (t) => {
  const s = await signupHarness(t);
  await verifiedAlice(s);
  const web = await s.signIn('alice', 'old password');
  assert.equal(web.status, 200);
  const api = (await s.request('/api/cookie?username=alice&password=old%20password')).headers['set-cookie']?.[0];
  assert.ok(web.cookie && api);
  assert.equal((await s.request('/api/session', { headers: { cookie: web.cookie } })).status, 200);
  assert.equal((await s.request('/api/vehicles', { headers: { cookie: api } })).status, 200);

  const unknown = await s.post('/api/account/reset', { email: 'nobody@example.org' });
  const known = await s.post('/api/account/reset', { email: 'ALICE@example.org' });
  assert.equal(unknown.status, 202);
  assert.equal(known.status, 202);
  assert.equal(unknown.body, known.body);
  await s.settled();
  assert.equal(s.sink.messages.length, 2, 'one mail: the known address');
  const mail = s.sink.messages[1]!;
  assert.equal(mail.subject, 'Reset your password');
  assert.deepEqual(mail.envelope.to, ['alice@example.org']);
  const token = tokenOf(mail, 'reset');
  const link = await s.request(`/reset?token=${token}`);
  assert.equal(link.headers.location, `/#/reset?token=${token}`);

  const weak = await s.post('/api/account/reset/confirm', { token, password: 'short' });
  assert.equal(weak.status, 400);
  assert.equal(weak.json.error, 'VTS_ERR_INVALID_INPUT', 'a bad password does not use the link up');
  const done = await s.post('/api/account/reset/confirm', { token, password: 'new password' });
  assert.equal(done.status, 200);
  assert.deepEqual(done.json, { user: 'alice' });

  assert.equal((await s.request('/api/session', { headers: { cookie: web.cookie } })).status, 401, 'the web session ended');
  assert.equal((await s.request('/api/vehicles', { headers: { cookie: api } })).status, 401, 'the API session ended');
  assert.equal((await s.signIn('alice', 'old password')).status, 401);
  assert.equal((await s.signIn('alice', 'new password')).status, 200);
  const reuse = await s.post('/api/account/reset/confirm', { token, password: 'third password' });
  assert.equal(reuse.status, 400);
  assert.equal(reuse.json.error, 'VTS_ERR_TOKEN_INVALID', 'single use');
  await s.settled();
  assert.ok(!s.t.logs.some((l) => l.includes(token)), 'no log line holds the token');
});

test('a reset link verifies an account that was not verified (it proves the address); a verify token is no reset token', async (t) => {
  const s = await signupHarness(t);
  await s.post('/api/account', { username: 'bob', email: 'bob@example.org', password: 'bobs password' });
  const verify = tokenOf(await s.mail(1), 'verify');
  await s.post('/api/account/reset', { email: 'bob@example.org' });
  const reset = tokenOf(await s.mail(2), 'reset');
  assert.equal((await s.post('/api/account/reset/confirm', { token: verify, password: 'new password' })).json.error, 'VTS_ERR_TOKEN_INVALID');
  assert.equal((await s.post('/api/account/reset/confirm', { token: reset, password: 'new password' })).status, 200);
  assert.equal((await s.signIn('bob', 'new password')).status, 200);
});

test('the throttle: mails to one address from one client, and token guesses, are limited (429, Retry-After)', async (t) => {
  const s = await signupHarness(t, { config: { loginLimits: { pair: { burst: 3, perMinute: 1 } } } });
  const codes: number[] = [];
  for (let i = 0; i < 4; i++) codes.push((await s.post('/api/account/reset', { email: 'nobody@example.org' })).status);
  assert.deepEqual(codes, [202, 202, 202, 429], 'every mailing call is charged, whatever the address');
  const refused = await s.post('/api/account/reset', { email: 'nobody@example.org' });
  assert.equal(refused.json.error, 'VTS_ERR_LOGIN_THROTTLED');
  assert.match(String(refused.headers['retry-after']), /^\d+$/);
  assert.equal((await s.post('/api/account/reset', { email: 'other@example.org' })).status, 202, 'another address: its own pair');
  const signups: number[] = [];
  for (let i = 0; i < 4; i++) signups.push((await s.post('/api/account', { username: `u${i}`, email: 'same@example.org', password: 'a password' })).status);
  assert.deepEqual(signups, [202, 202, 202, 429], 'sign-ups are charged to their address too');

  const guesses: number[] = [];
  for (let i = 0; i < 4; i++) guesses.push((await s.post('/api/account/verify', { token: String(i).repeat(43) })).status);
  assert.deepEqual(guesses, [400, 400, 400, 429], 'wrong tokens are counted');
  assert.equal((await s.post('/api/account/reset/confirm', { token: 'x'.repeat(43), password: 'new password' })).status, 429, 'one budget for every token call');
});
