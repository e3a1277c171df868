/**
 * Sign-up and mail verification (docs/accounts.md "Sign-up and recovery") on a real server with a
 * real SMTP receiver: sign-up → the mail → its link's token → verify → the login works; before
 * that the dashboard sign-in says VTS_ERR_UNVERIFIED and the API v2 refuses it as a wrong login;
 * taken names and addresses answer the same; invitation codes; registration off; no SMTP.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secretHash } from '../../../src/auth/signup.js';
import { mailText, PUBLIC_URL, signupHarness, tokenOf } from '../../support/signup.js';

const ALICE = { username: 'alice', email: 'Alice@Example.org', password: 'correct horse' };

test('open sign-up: 202, a mail with a real /verify?token= link; refused until verified; verify once; then the login works', async (t) => {
  const s = await signupHarness(t);
  assert.equal((await s.request('/api/account/options')).body, '{"mail":true,"registration":"open"}' + '\n');

  const r = await s.post('/api/account', ALICE);
  assert.equal(r.status, 202);
  assert.deepEqual(r.json, { accepted: true });
  const mail = await s.mail(1);
  assert.deepEqual(mail.envelope.to.map((a) => a.toLowerCase()), ['alice@example.org']);
  assert.equal(mail.subject, 'Confirm your mail address');
  assert.match(mail.headers.get('content-type') ?? '', /^multipart\/alternative/, 'plain text and HTML');
  const token = tokenOf(mail, 'verify');
  assert.match(token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  assert.match(mailText(mail), /href="https:\/\/vts\.example\.org\/verify\?token=/, 'the HTML part links it too');

  // stored hashed, never in the log
  const owner = await s.t.server.store.getOwnerByName('alice');
  assert.equal(owner?.verified, false);
  assert.equal(owner?.email, 'Alice@Example.org');
  assert.equal(await s.t.server.store.signup.takeToken(token, 'verify', 0), undefined, 'the token itself is not a stored key');

  // before the link: the dashboard says why, the API v2 refuses as a wrong login
  const early = await s.signIn('alice', ALICE.password);
  assert.equal(early.status, 403);
  assert.equal(early.json.error, 'VTS_ERR_UNVERIFIED');
  assert.equal(early.cookie, undefined);
  const v2 = await s.request(`/api/cookie?username=alice&password=${encodeURIComponent(ALICE.password)}`);
  assert.equal(v2.status, 401);
  assert.equal(v2.body, (await s.request('/api/cookie?username=alice&password=wrongwrong')).body, 'the same answer as a wrong password');

  // the mailed link opens the dashboard's page with the token
  const link = await s.request(`/verify?token=${token}`);
  assert.equal(link.status, 302);
  assert.equal(link.headers.location, `/#/verify?token=${token}`);
  assert.equal(link.headers['referrer-policy'], 'no-referrer');

  const v = await s.post('/api/account/verify', { token });
  assert.equal(v.status, 200);
  assert.deepEqual(v.json, { user: 'alice', verified: true });
  const again = await s.post('/api/account/verify', { token });
  assert.equal(again.status, 400);
  assert.equal(again.json.error, 'VTS_ERR_TOKEN_INVALID', 'single use');

  const ok = await s.signIn('alice', ALICE.password);
  assert.equal(ok.status, 200);
  assert.ok(ok.cookie);
  assert.equal((await s.request(`/api/cookie?username=alice&password=${encodeURIComponent(ALICE.password)}`)).status, 200, 'the API v2 too');

  await s.settled();
  assert.ok(!s.t.logs.some((l) => l.includes(token)), 'no log line holds the token');
  assert.ok(!s.t.logs.some((l) => l.includes(ALICE.password)), 'nor the password');
});

test('the input is checked: user name as vts user add, a mail address, the password rule, JSON only', async (t) => {
  const s = await signupHarness(t);
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...ALICE, username: 'has space' }, /^username: /],
    [{ ...ALICE, username: 'x'.repeat(61) }, /^username: /],
    [{ ...ALICE, email: 'no-at.example.org' }, /^email: /],
    [{ ...ALICE, email: 'a@localhost' }, /^email: /],
    [{ ...ALICE, password: 'short' }, /^password: the password must have at least 8/],
    [{ ...ALICE, password: 12345678 }, /^password: a string/],
  ];
  for (const [body, message] of cases) {
    const r = await s.post('/api/account', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.json.error, 'VTS_ERR_INVALID_INPUT');
    assert.match(String(r.json.message), message);
  }
  const form = await s.request('/api/account', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=alice&email=a%40example.org&password=12345678' });
  assert.equal(form.status, 400, 'a form (a cross-site post) is refused');
  await s.settled();
  assert.equal(s.sink.messages.length, 0);
  assert.equal(await s.t.server.store.getOwnerByName('alice'), undefined);
});

test('a taken name or address answers the same 202; the holder of the address is told, no account is made', async (t) => {
  const s = await signupHarness(t);
  await s.post('/api/account', ALICE);
  await s.mail(1);

  const takenAddress = await s.post('/api/account', { username: 'mallory', email: 'ALICE@example.org', password: 'something else' });
  const takenName = await s.post('/api/account', { username: 'ALICE', email: 'bob@example.org', password: 'something else' });
  const free = await s.post('/api/account', { username: 'carol', email: 'carol@example.org', password: 'something else' });
  for (const r of [takenAddress, takenName]) {
    assert.equal(r.status, free.status);
    assert.equal(r.body, free.body);
    assert.deepEqual(Object.keys(r.headers).sort(), Object.keys(free.headers).sort());
  }
  await s.settled();
  const mails = await s.sink.waitForMessages(4);
  const to = (addr: string) => mails.filter((m) => m.envelope.to[0]?.toLowerCase() === addr.toLowerCase()).map((m) => m.subject);
  assert.deepEqual(to('alice@example.org'), ['Confirm your mail address', 'You already have an account'], 'the address holder hears of the attempt');
  assert.match(mailText(mails.find((m) => m.subject === 'You already have an account')!), /user name is alice[\s\S]*https:\/\/vts\.example\.org\/#\/reset/);
  assert.deepEqual(to('bob@example.org'), ['Choose another user name']);
  assert.deepEqual(to('carol@example.org'), ['Confirm your mail address']);
  assert.equal(await s.t.server.store.getOwnerByName('mallory'), undefined);
  assert.equal((await s.t.server.store.signup.ownerByEmail('bob@example.org')), undefined);
  assert.equal((await s.t.server.store.getOwnerByName('alice'))?.passwordHash !== undefined, true);
});

test('a new link for an unverified account: resend answers 202 always, the old link stops working', async (t) => {
  const s = await signupHarness(t);
  await s.post('/api/account', ALICE);
  const first = tokenOf(await s.mail(1), 'verify');
  assert.equal((await s.post('/api/account/verify/resend', { email: 'alice@example.org' })).status, 202);
  const second = tokenOf(await s.mail(2), 'verify');
  assert.notEqual(first, second);
  assert.equal((await s.post('/api/account/verify', { token: first })).json.error, 'VTS_ERR_TOKEN_INVALID');
  assert.equal((await s.post('/api/account/verify', { token: second })).status, 200);
  // verified now, or unknown: 202 and nothing sent
  assert.equal((await s.post('/api/account/verify/resend', { email: 'alice@example.org' })).status, 202);
  assert.equal((await s.post('/api/account/verify/resend', { email: 'nobody@example.org' })).status, 202);
  await s.settled();
  assert.equal(s.sink.messages.length, 2);
});

test('invite mode: no code or a wrong one is refused; a code of 1 use makes one account', async (t) => {
  const s = await signupHarness(t, { registration: 'invite' });
  assert.equal((await s.request('/api/account/options')).body, '{"mail":true,"registration":"invite"}' + '\n');
  const code = 'the-invitation-code-1';
  await s.t.server.store.signup.addInvite({ codeHash: secretHash(code), usesLeft: 1, expires: null, created: 1 });

  const none = await s.post('/api/account', ALICE);
  assert.equal(none.status, 400);
  assert.equal(none.json.error, 'VTS_ERR_INVITE_INVALID');
  const wrong = await s.post('/api/account', { ...ALICE, invite: 'not-the-code' });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json.error, 'VTS_ERR_INVITE_INVALID');

  assert.equal((await s.post('/api/account', { ...ALICE, invite: code })).status, 202);
  const token = tokenOf(await s.mail(1), 'verify');
  const used = await s.post('/api/account', { username: 'bob', email: 'bob@example.org', password: 'bobs password', invite: code });
  assert.equal(used.status, 400);
  assert.equal(used.json.error, 'VTS_ERR_INVITE_INVALID', 'used up');
  assert.equal((await s.post('/api/account/verify', { token })).status, 200);
  assert.equal((await s.signIn('alice', ALICE.password)).status, 200);
  await s.settled();
  assert.equal(s.sink.messages.length, 1);
});

test('registration off: 403 VTS_ERR_REGISTRATION_OFF; the options say so', async (t) => {
  const s = await signupHarness(t, { registration: 'off' });
  const r = await s.post('/api/account', ALICE);
  assert.equal(r.status, 403);
  assert.equal(r.json.error, 'VTS_ERR_REGISTRATION_OFF');
  assert.equal((await s.request('/api/account/options')).body, '{"mail":true,"registration":"off"}' + '\n', 'a reset is still offered (mail is on)');
  assert.ok(!s.t.logs.some((l) => l.includes('--registration')), 'no warning');
});

test('registration open without --smtp-url or --public-url: one warning line each at start; sign-up answers VTS_ERR_MAIL_OFF', async (t) => {
  const s = await signupHarness(t, { mail: false, publicUrl: false });
  const warnings = s.t.logs.filter((l) => l.includes('"level":40') && /smtp-url|public-url/.test(l));
  assert.equal(warnings.length, 2, warnings.join('\n'));
  assert.match(warnings[0]!, /sign-up needs --smtp-url/);
  const r = await s.post('/api/account', ALICE);
  assert.equal(r.status, 503);
  assert.equal(r.json.error, 'VTS_ERR_MAIL_OFF');
  assert.equal((await s.post('/api/account/reset', { email: 'alice@example.org' })).json.error, 'VTS_ERR_MAIL_OFF');
  assert.equal((await s.request('/api/account/options')).body, '{"mail":false,"registration":"off"}' + '\n');
});

test('without --public-url the links use the request\'s own host', async (t) => {
  const s = await signupHarness(t, { publicUrl: false });
  await s.post('/api/account', ALICE, { headers: { host: 'dash.example.net:8080' } });
  const token = tokenOf(await s.mail(1), 'verify', 'http://dash.example.net:8080');
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(PUBLIC_URL);
});
