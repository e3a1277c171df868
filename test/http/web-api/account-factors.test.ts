/**
 * The account's second factor over HTTP (docs/accounts.md "A second factor"): TOTP enrolment with a
 * computed code, the sign-in that then needs the code, a wrong code (counted by the login
 * throttle), a replayed code, a recovery code (once), disabling; `GET|PUT /api/account`; and API
 * password logins turned off end to end (the API v2 refuses the password and takes a token; the
 * dashboard sign-in still works). The server's clock is the test's, so codes are computed exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { base32Decode, totpCode } from '../../../src/core/auth/totp.js';
import { SQLITE_FILE_NAME } from '../../../src/store/open.js';
import { httpHarness, type HttpHarness } from '../helpers.js';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

const json = (body: unknown, method = 'POST', more: Record<string, string> = {}) => ({
  method,
  headers: { 'content-type': 'application/json', ...more },
  body: JSON.stringify(body),
});

interface Web {
  cookie: string;
  csrf: string;
}

async function signIn(h: HttpHarness, body: Record<string, string>): Promise<{ status: number; body: { error?: string; csrf?: string }; cookie?: string }> {
  const r = await h.request('/api/session', json(body));
  return { status: r.status, body: JSON.parse(r.body) as { error?: string; csrf?: string }, cookie: r.headers['set-cookie']?.[0]?.split(';', 1)[0] };
}

async function web(h: HttpHarness, extra: Record<string, string> = {}): Promise<Web> {
  const r = await signIn(h, { username: 'demo', password: 'demopass', ...extra });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { cookie: r.cookie!, csrf: r.body.csrf! };
}

const as = (w: Web, method: string, body?: unknown) => ({
  method,
  headers: { cookie: w.cookie, 'x-csrf-token': w.csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

test('TOTP: enrol, confirm with a computed code, sign-in needs the code, wrong and replayed codes, a recovery code once, disable', async (t) => {
  let now = T0;
  const h = await httpHarness(t, { clock: () => now });
  const w = await web(h);

  const account0 = await h.request('/api/account', { headers: { cookie: w.cookie } });
  assert.equal(account0.status, 200);
  assert.deepEqual(JSON.parse(account0.body), {
    user: 'demo', email: null, verified: true, admin: false, apiPasswords: true, totpEnabled: false, recoveryCodesLeft: 0, passkeys: 0,
  });

  const begun = await h.request('/api/account/totp', as(w, 'POST'));
  assert.equal(begun.status, 200, begun.body);
  const { secret, uri } = JSON.parse(begun.body) as { secret: string; uri: string };
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.equal(uri, `otpauth://totp/vts:demo?secret=${secret}&issuer=vts&algorithm=SHA1&digits=6&period=30`);
  const key = base32Decode(secret)!;

  // not in force before it is confirmed
  assert.equal((await signIn(h, { username: 'demo', password: 'demopass' })).status, 200);
  // the secret is sealed at rest: not in the database file in clear
  if (!h.t.database) {
    const files = [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`].map((f) => join(h.t.dataDir, f)).filter((f) => existsSync(f));
    assert.ok(files.length > 0);
    for (const f of files) assert.ok(!readFileSync(f).includes(secret), 'the secret is sealed');
  }

  const wrong = await h.request('/api/account/totp/confirm', as(w, 'POST', { code: totpCode(key, now) === '000000' ? '111111' : '000000' }));
  assert.equal(wrong.status, 401);
  assert.equal((JSON.parse(wrong.body) as { error: string }).error, 'VTS_ERR_TOTP_INVALID');

  const confirmed = await h.request('/api/account/totp/confirm', as(w, 'POST', { code: totpCode(key, now) }));
  assert.equal(confirmed.status, 200, confirmed.body);
  const { recoveryCodes } = JSON.parse(confirmed.body) as { recoveryCodes: string[] };
  assert.equal(recoveryCodes.length, 10);
  assert.equal(new Set(recoveryCodes).size, 10);
  for (const c of recoveryCodes) assert.match(c, /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
  assert.equal((await h.request('/api/account/totp', as(w, 'POST'))).status, 409, 'enrolling again needs it off first');

  // a right password alone: the code is asked for; a wrong password says nothing of the factor
  const asked = await signIn(h, { username: 'demo', password: 'demopass' });
  assert.equal(asked.status, 401);
  assert.equal(asked.body.error, 'VTS_ERR_TOTP_REQUIRED');
  assert.equal(asked.cookie, undefined);
  assert.equal((await signIn(h, { username: 'demo', password: 'nope' })).body.error, 'VTS_ERR_AUTH');
  assert.equal((await signIn(h, { username: 'demo', password: 'nope', code: totpCode(key, now) })).body.error, 'VTS_ERR_AUTH');

  // the confirming code's step is used: the same code again is a replay
  const replayConfirm = await signIn(h, { username: 'demo', password: 'demopass', code: totpCode(key, now) });
  assert.equal(replayConfirm.status, 401);
  assert.equal(replayConfirm.body.error, 'VTS_ERR_TOTP_INVALID');

  now += 30_000;
  const failuresBefore = h.t.server.guard.failures;
  const bad = await signIn(h, { username: 'demo', password: 'demopass', code: '12345' });
  assert.equal(bad.body.error, 'VTS_ERR_TOTP_INVALID');
  assert.equal(h.t.server.guard.failures, failuresBefore + 1, 'a wrong code is a failed login');

  const code = totpCode(key, now);
  const ok = await signIn(h, { username: 'demo', password: 'demopass', code });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.ok(ok.cookie);
  const replay = await signIn(h, { username: 'demo', password: 'demopass', code });
  assert.equal(replay.status, 401);
  assert.equal(replay.body.error, 'VTS_ERR_TOTP_INVALID', 'a code is accepted once');

  // a recovery code in place of a code, used up
  const recovery = recoveryCodes[0]!;
  assert.equal((await signIn(h, { username: 'demo', password: 'demopass', code: recovery.toUpperCase() })).status, 200);
  assert.equal((await signIn(h, { username: 'demo', password: 'demopass', code: recovery })).body.error, 'VTS_ERR_TOTP_INVALID');
  const w2 = { cookie: ok.cookie!, csrf: ok.body.csrf! };
  const account1 = JSON.parse((await h.request('/api/account', { headers: { cookie: w2.cookie } })).body) as { totpEnabled: boolean; recoveryCodesLeft: number };
  assert.equal(account1.totpEnabled, true);
  assert.equal(account1.recoveryCodesLeft, 9);

  // an API token cannot turn it off; a wrong code does not; a recovery code does
  const tokenLogin = await h.request('/api/account/totp?username=demo&password=demopass', json({ code: recoveryCodes[1] }, 'DELETE'));
  assert.equal(tokenLogin.status, 403, 'a password login of the API is no dashboard session');
  assert.equal((await h.request('/api/account/totp', as(w2, 'DELETE', { code: '999999' }))).status, 401);
  const off = await h.request('/api/account/totp', as(w2, 'DELETE', { code: recoveryCodes[1] }));
  assert.equal(off.status, 204, off.body);
  assert.equal((await signIn(h, { username: 'demo', password: 'demopass' })).status, 200, 'no code asked any more');
  const account2 = JSON.parse((await h.request('/api/account', { headers: { cookie: w2.cookie } })).body) as { totpEnabled: boolean; recoveryCodesLeft: number };
  assert.equal(account2.totpEnabled, false);
  assert.equal(account2.recoveryCodesLeft, 0);
  assert.ok(h.t.logs.some((l) => l.includes('"audit":"totp.enable"')));
  assert.ok(!h.t.logs.some((l) => l.includes(secret) || l.includes(recoveryCodes[2]!)), 'no secret in the log');
});

test('TOTP can be disabled with a code of the app', async (t) => {
  let now = T0;
  const h = await httpHarness(t, { clock: () => now });
  const w = await web(h);
  const { secret } = JSON.parse((await h.request('/api/account/totp', as(w, 'POST'))).body) as { secret: string };
  const key = base32Decode(secret)!;
  assert.equal((await h.request('/api/account/totp/confirm', as(w, 'POST', { code: totpCode(key, now) }))).status, 200);
  now += 30_000;
  assert.equal((await h.request('/api/account/totp', as(w, 'DELETE', { code: totpCode(key, now) }))).status, 204);
  assert.equal((await h.request('/api/account/totp', as(w, 'DELETE', { code: totpCode(key, now) }))).status, 409, 'off already');
});

test('API password logins off: the API v2 refuses the password and takes a token; the dashboard sign-in still works', async (t) => {
  const h = await httpHarness(t);
  const w = await web(h);
  const token = await h.request('/api/token?username=demo&password=demopass&application=test&purpose=factors&permit=*', { method: 'POST' });
  assert.equal(token.status, 201, token.body);
  const tokenText = (JSON.parse(token.body) as { token: string }).token;
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);

  assert.equal((await h.request('/api/account', as(w, 'PUT', { apiPasswords: 'maybe' }))).status, 400);
  const viaToken = await h.request(`/api/account?username=demo&password=${tokenText}`, json({ apiPasswords: false }, 'PUT'));
  assert.equal(viaToken.status, 403, 'an API token may not change it');
  const put = await h.request('/api/account', as(w, 'PUT', { apiPasswords: false }));
  assert.equal(put.status, 200, put.body);
  assert.equal((JSON.parse(put.body) as { apiPasswords: boolean }).apiPasswords, false);

  const refused = await h.asDemo('/api/vehicles');
  assert.equal(refused.status, 401, 'the password no longer logs in on the API v2');
  const withToken = await h.request(`/api/vehicles?username=demo&password=${tokenText}`);
  assert.equal(withToken.status, 200, withToken.body);
  assert.equal((await signIn(h, { username: 'demo', password: 'demopass' })).status, 200, 'the dashboard takes the password');

  assert.equal((await h.request('/api/account', as(w, 'PUT', { apiPasswords: true }))).status, 200);
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);
});

test('passkeys over HTTP: options for a signed-in owner only, an answer that does not verify, a challenge used once, list/rename/remove of none', async (t) => {
  const h = await httpHarness(t);
  const w = await web(h);
  const byPassword = await h.request('/api/account/passkeys/options?username=demo&password=demopass', { method: 'POST' });
  assert.equal(byPassword.status, 403, 'a password login of the API cannot register a passkey');
  const reg = await h.request('/api/account/passkeys/options', as(w, 'POST'));
  assert.equal(reg.status, 200, reg.body);
  const regBody = JSON.parse(reg.body) as { challengeId: string; options: { rp: { id: string; name: string }; user: { name: string }; authenticatorSelection: { residentKey: string; userVerification: string } } };
  assert.equal(regBody.options.rp.id, '127.0.0.1', 'the request\'s host without --public-url');
  assert.equal(regBody.options.user.name, 'demo');
  assert.deepEqual(regBody.options.authenticatorSelection, { residentKey: 'required', userVerification: 'required', requireResidentKey: true });
  const bogus = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'oA' }, clientExtensionResults: {} };
  const bad = await h.request('/api/account/passkeys', as(w, 'POST', { challengeId: regBody.challengeId, response: bogus }));
  assert.equal(bad.status, 401);
  assert.equal((JSON.parse(bad.body) as { error: string }).error, 'VTS_ERR_PASSKEY_INVALID');
  assert.equal((await h.request('/api/account/passkeys', as(w, 'POST', { challengeId: 'x' }))).status, 400);

  const signInOptions = await h.request('/api/session/passkey/options', json({}));
  assert.equal(signInOptions.status, 200, 'public');
  const { challengeId, options } = JSON.parse(signInOptions.body) as { challengeId: string; options: { rpId: string; userVerification: string } };
  assert.equal(options.rpId, '127.0.0.1');
  assert.equal(options.userVerification, 'required');
  const unknown = await h.request('/api/session/passkey', json({ challengeId, response: { ...bogus, response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' } } }));
  assert.equal(unknown.status, 401);
  assert.equal((JSON.parse(unknown.body) as { error: string }).error, 'VTS_ERR_PASSKEY_INVALID');
  assert.equal(unknown.headers['set-cookie'], undefined);
  const again = await h.request('/api/session/passkey', json({ challengeId, response: bogus }));
  assert.equal((JSON.parse(again.body) as { message: string }).message, 'unknown or expired challenge: begin again', 'a challenge is used once');

  assert.deepEqual(JSON.parse((await h.request('/api/account/passkeys', { headers: { cookie: w.cookie } })).body), []);
  assert.equal((await h.request('/api/account/passkeys/AAAA', as(w, 'PUT', { name: 'x' }))).status, 404);
  assert.equal((await h.request('/api/account/passkeys/AAAA', as(w, 'DELETE'))).status, 404);
  assert.equal((await h.request('/api/account/passkeys/AAAA', as(w, 'PUT', { name: '' }))).status, 400);
});
