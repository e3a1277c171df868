/**
 * The FCM provider (src/push/providers/fcm.ts) against a local Google (test/support/push/
 * fcm-endpoint.ts) that plays the OAuth token exchange and the HTTP v1 API: the reference's
 * message, the access token's cache, each result kind, timeouts, and settings errors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { isVtsError } from '../../src/errors.js';
import type { DeliveryItem, PushProvider } from '../../src/push/provider.js';
import { createFcmProvider, fcmMessage, fcmPayload, fcmTimestamp, FCM_SCOPE } from '../../src/push/providers/fcm.js';
import { FCM_ANSWERS, FCM_TEST_SERVICE_ACCOUNT, startFcmEndpoint, type FcmEndpoint } from '../support/push/fcm-endpoint.js';
import { deliveryItem } from '../support/push/delivery-item.js';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5);
const log = pino({ level: 'silent' });

let fcm: FcmEndpoint;
before(async () => {
  fcm = await startFcmEndpoint();
});
after(async () => {
  await fcm.close();
});

const item = (over: Partial<DeliveryItem> = {}): DeliveryItem => deliveryItem('fcm', { ownerName: 'alice', vehicleId: 'DEMO', keyType: 'production', address: 'fcm-token-1', ...over });

function provider() {
  const clock = { now: T0 };
  const p = createFcmProvider(fcm.settings, { log, now: () => clock.now });
  return { p, clock };
}

const never = new AbortController().signal;

async function sendOne(p: PushProvider, it: DeliveryItem, signal = never) {
  const results = await p.send([it], signal);
  assert.equal(results.length, 1);
  return results[0]!;
}

/** Exchanges and requests from here on, each checked as Google would take it. */
function mark() {
  const e0 = fcm.exchanges.length;
  const r0 = fcm.requests.length;
  return {
    exchanges: () => fcm.exchanges.slice(e0),
    requests: () => fcm.requests.slice(r0),
    clean: () => {
      for (const e of fcm.exchanges.slice(e0)) assert.equal(e.problem, undefined, `exchange: ${e.problem}`);
      for (const r of fcm.requests.slice(r0)) assert.equal(r.problem, undefined, `request: ${r.problem}`);
    },
  };
}

test('fcmTimestamp: the reference UTC text', () => {
  assert.equal(fcmTimestamp(1_700_000_000), '2023-11-14 22:13:20');
  assert.equal(fcmTimestamp(0), '1970-01-01 00:00:00');
});

test('fcmPayload: the reference data message, all values strings (golden)', () => {
  assert.equal(
    fcmPayload(item()),
    '{"message":{"token":"fcm-token-1","data":{"type":"A","time":"2023-11-14 22:13:20","title":"DEMO","message":"Charging stopped","vehiclename":"My Leaf"},' +
      '"android":{"collapse_key":"f2d6a0a162e496ff85bc78020c95a378028be2bf438300b98f8fd3143c354235","priority":"high"}}}',
  );
  const unnamed = fcmMessage(item({ vehicleName: '' })).message.data;
  assert.equal(unnamed.vehiclename, '');
});

test('fcmMessage: a text too long for FCM is cut to fit 4 KB of data; the collapse key is of the whole text', () => {
  const text = 'ä'.repeat(3000);
  const m = fcmMessage(item({ text })).message;
  const size = Object.entries(m.data).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  assert.ok(size <= 4096 && size > 4000, `${size} bytes`);
  assert.match(m.data.message, /^ä+…$/);
  assert.equal(m.android.collapse_key, fcmMessage(item({ text, address: 'other' })).message.android.collapse_key);
  assert.notEqual(m.android.collapse_key, fcmMessage(item({ text: text.slice(1) })).message.android.collapse_key);
});

test('description, channel and batch size', () => {
  const { p } = provider();
  assert.equal(p.description, `on, ${fcm.url}, project vts-test`);
  assert.equal(p.channel, 'fcm');
  assert.equal(p.batchSize, 1);
  const google = createFcmProvider({ serviceAccountFile: FCM_TEST_SERVICE_ACCOUNT }, { log, now: () => T0 });
  assert.equal(google.description, 'on, https://fcm.googleapis.com, project vts-test');
});

test('delivered: an OAuth exchange with a signed assertion, then messages:send with its token', async () => {
  const m = mark();
  const { p } = provider();
  const it = item({ address: 'deliver-1' });
  const result = await sendOne(p, it);
  assert.equal(result.kind, 'delivered');
  assert.match(result.detail, /^delivered \(message 0:\d+%[0-9a-f]+\)$/);
  m.clean();
  const [ex, ...moreEx] = m.exchanges();
  assert.equal(moreEx.length, 0);
  assert.equal(ex!.form.grant_type, 'urn:ietf:params:oauth:grant-type:jwt-bearer');
  assert.deepEqual(ex!.decoded?.header, { alg: 'RS256', typ: 'JWT', kid: '0123456789abcdef0123456789abcdef01234567' });
  assert.deepEqual(ex!.decoded?.claims, {
    iss: 'firebase-adminsdk-test@vts-test.iam.gserviceaccount.com',
    scope: FCM_SCOPE,
    aud: fcm.tokenUri,
    iat: T0 / 1000,
    exp: T0 / 1000 + 3600,
  });
  const [req, ...moreReq] = m.requests();
  assert.equal(moreReq.length, 0);
  assert.equal(req!.projectId, 'vts-test');
  assert.equal(req!.accessToken, ex!.issued);
  assert.equal(req!.body, fcmPayload(it));
  assert.equal(req!.token, 'deliver-1');
  await p.close();
});

test('access token: two sends, one exchange; concurrent sends share it; renewed 60 s before it expires', async () => {
  const m = mark();
  const { p, clock } = provider();
  await Promise.all([sendOne(p, item({ address: 'cache-1' })), sendOne(p, item({ address: 'cache-2' }))]);
  assert.equal(m.exchanges().length, 1, 'concurrent sends wait for one exchange');
  await sendOne(p, item({ address: 'cache-1' }));
  assert.equal(m.exchanges().length, 1, 'the second send uses the cached token');
  clock.now = T0 + (3599 - 60) * 1000 - 1;
  await sendOne(p, item({ address: 'cache-1' }));
  assert.equal(m.exchanges().length, 1);
  clock.now = T0 + (3599 - 60) * 1000;
  await sendOne(p, item({ address: 'cache-1' }));
  assert.equal(m.exchanges().length, 2, 'a new token a minute before the old one expires');
  assert.equal(m.exchanges()[1]!.decoded?.claims.iat, clock.now / 1000);
  const used = m.requests().map((r) => r.accessToken);
  assert.deepEqual(used, [m.exchanges()[0]!.issued, m.exchanges()[0]!.issued, m.exchanges()[0]!.issued, m.exchanges()[0]!.issued, m.exchanges()[1]!.issued]);
  m.clean();
  await p.close();
});

test('401: the cached token is dropped (temporary), the next send gets a new one', async () => {
  const m = mark();
  const { p } = provider();
  assert.equal((await sendOne(p, item({ address: 'revoke-1' }))).kind, 'delivered');
  fcm.revokeTokens();
  const result = await sendOne(p, item({ address: 'revoke-1' }));
  assert.equal(result.kind, 'temporary');
  assert.match(result.detail, /^FCM 401 UNAUTHENTICATED: Request had invalid authentication credentials.* \(access token dropped\)$/);
  assert.equal((await sendOne(p, item({ address: 'revoke-1' }))).kind, 'delivered');
  assert.equal(m.exchanges().length, 2);
  await p.close();
});

test('invalid: UNREGISTERED, not a valid registration token, SENDER_ID_MISMATCH', async () => {
  const { p } = provider();
  fcm.script('gone-1', FCM_ANSWERS.unregistered);
  fcm.script('bad-1', FCM_ANSWERS.invalidToken);
  fcm.script('sender-1', FCM_ANSWERS.senderIdMismatch);
  assert.deepEqual(await sendOne(p, item({ address: 'gone-1' })), { kind: 'invalid', detail: 'FCM 404 UNREGISTERED: Requested entity was not found.' });
  assert.deepEqual(await sendOne(p, item({ address: 'bad-1' })), {
    kind: 'invalid',
    detail: 'FCM 400 INVALID_ARGUMENT: The registration token is not a valid FCM registration token',
  });
  assert.deepEqual(await sendOne(p, item({ address: 'sender-1' })), { kind: 'invalid', detail: 'FCM 403 SENDER_ID_MISMATCH: SenderId mismatch' });
  // Google's 404 without the FCM detail is the token's too
  fcm.script('gone-2', { status: 404, errorStatus: 'NOT_FOUND', message: 'Requested entity was not found.' });
  assert.equal((await sendOne(p, item({ address: 'gone-2' }))).kind, 'invalid');
  await p.close();
});

test('permanent: other 4xx (a 404 that is not Google\'s, a 403 of the account, a bad argument)', async () => {
  const { p } = provider();
  fcm.script('perm-1', { status: 404 }, { status: 403, errorStatus: 'PERMISSION_DENIED', message: 'Permission denied.' }, FCM_ANSWERS.invalidArgument);
  assert.deepEqual(await sendOne(p, item({ address: 'perm-1' })), { kind: 'permanent', detail: 'FCM 404' });
  assert.deepEqual(await sendOne(p, item({ address: 'perm-1' })), { kind: 'permanent', detail: 'FCM 403 PERMISSION_DENIED: Permission denied.' });
  assert.deepEqual(await sendOne(p, item({ address: 'perm-1' })), { kind: 'permanent', detail: "FCM 400 INVALID_ARGUMENT: Invalid value at 'message.data[0].value'" });
  await p.close();
});

test('temporary: 503 and 429 with Retry-After, 500 without', async () => {
  const { p } = provider();
  fcm.script('busy-1', { ...FCM_ANSWERS.unavailable, retryAfter: 120 }, FCM_ANSWERS.quotaExceeded, { status: 500, errorStatus: 'INTERNAL', message: 'Internal error.' });
  assert.deepEqual(await sendOne(p, item({ address: 'busy-1' })), { kind: 'temporary', detail: 'FCM 503 UNAVAILABLE: The service is currently unavailable.', retryAfter: 120, slowDown: true });
  assert.deepEqual(await sendOne(p, item({ address: 'busy-1' })), { kind: 'temporary', detail: 'FCM 429 QUOTA_EXCEEDED: Quota exceeded.', retryAfter: 30, slowDown: true });
  assert.deepEqual(await sendOne(p, item({ address: 'busy-1' })), { kind: 'temporary', detail: 'FCM 500 INTERNAL: Internal error.' });
  assert.equal((await sendOne(p, item({ address: 'busy-1' }))).kind, 'delivered');
  await p.close();
});

test('a failed token exchange: 4xx permanent, 5xx temporary; no token cached, the next send tries again', async () => {
  const m = mark();
  const { p } = provider();
  fcm.scriptExchange(
    { status: 400, error: 'invalid_grant', description: 'Invalid JWT Signature.' },
    { status: 503, error: 'temporarily_unavailable', retryAfter: 10 },
  );
  assert.deepEqual(await sendOne(p, item({ address: 'exch-1' })), { kind: 'permanent', detail: 'OAuth token exchange: 400 invalid_grant: Invalid JWT Signature.' });
  assert.deepEqual(await sendOne(p, item({ address: 'exch-1' })), { kind: 'temporary', detail: 'OAuth token exchange: 503 temporarily_unavailable', retryAfter: 10, slowDown: true });
  assert.equal((await sendOne(p, item({ address: 'exch-1' }))).kind, 'delivered');
  assert.equal(m.exchanges().length, 3);
  assert.equal(m.requests().length, 1, 'no send without a token');
  await p.close();
});

test('an answer that does not come (send or exchange): the aborted attempt is temporary', async () => {
  const { p } = provider();
  fcm.script('hang-1', 'hang');
  let controller = new AbortController();
  let pending = sendOne(p, item({ address: 'hang-1' }), controller.signal);
  await fcm.waitForRequests(fcm.requests.length + 1);
  controller.abort();
  assert.deepEqual(await pending, { kind: 'temporary', detail: 'no answer in time' });
  assert.equal((await sendOne(p, item({ address: 'hang-1' }))).kind, 'delivered');

  const fresh = provider().p;
  fcm.scriptExchange('hang');
  controller = new AbortController();
  pending = sendOne(fresh, item({ address: 'hang-2' }), controller.signal);
  await fcm.waitForExchanges(fcm.exchanges.length + 1);
  controller.abort();
  assert.deepEqual(await pending, { kind: 'temporary', detail: 'no answer in time' });
  await fresh.close();
  await p.close();
});

test('nothing listening: temporary', async () => {
  const down = await startFcmEndpoint();
  const p = createFcmProvider(down.settings, { log, now: () => T0 });
  await down.close();
  const result = await sendOne(p, item());
  assert.equal(result.kind, 'temporary');
  assert.match(result.detail, /^OAuth token exchange: connection failed \(.*ECONNREFUSED.*\)$/);
});

test('settings errors: one line naming the file and field, VTS_ERR_PUSH_CONFIG, never the key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-fcm-settings-'));
  const good = JSON.parse(readFileSync(FCM_TEST_SERVICE_ACCOUNT, 'utf8')) as Record<string, string>;
  const file = (name: string, content: string): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const json = (name: string, doc: Record<string, unknown>) => file(name, JSON.stringify(doc));
  const { project_id: _p, ...noProject } = good;
  const { client_email: _c, ...noEmail } = good;
  const { private_key: _k, ...noKey } = good;
  const { token_uri: _t, ...noUri } = good;
  const ec = String(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const cases: [string, RegExp][] = [
    ['', /no service-account file: .*--fcm-service-account/],
    [join(dir, 'missing.json'), /cannot read the service-account file .*missing\.json \(ENOENT\): check --fcm-service-account/],
    [file('broken.json', `{"private_key": "${good.private_key!.slice(0, 200)}`), /the service-account file .*broken\.json is not a JSON object: give the JSON key/],
    [json('array.json', [] as unknown as Record<string, unknown>), /array\.json is not a JSON object/],
    [json('noproject.json', noProject), /noproject\.json has no "project_id"/],
    [json('noemail.json', noEmail), /noemail\.json has no "client_email"/],
    [json('nokey.json', noKey), /nokey\.json has no "private_key"/],
    [json('nouri.json', noUri), /nouri\.json has no "token_uri"/],
    [json('number.json', { ...good, client_email: 42 }), /number\.json has no "client_email"/],
    [json('baduri.json', { ...good, token_uri: 'not a url' }), /the "token_uri" of the service-account file .*baduri\.json is not an http\(s\) URL/],
    [json('badkey.json', { ...good, private_key: 'garbage' }), /the "private_key" of the service-account file .*badkey\.json is not usable: it holds no PEM private key/],
    [json('eckey.json', { ...good, private_key: ec }), /the "private_key" of .*eckey\.json is not usable: it holds a ec key, not an RSA key/],
  ];
  for (const [serviceAccountFile, message] of cases) {
    assert.throws(
      () => createFcmProvider({ serviceAccountFile }, { log, now: () => T0 }),
      (err: unknown) => {
        assert.ok(isVtsError(err, 'VTS_ERR_PUSH_CONFIG'), String(err));
        assert.match(err.message, /^a push provider cannot be used with its settings: fcm: /);
        assert.match(err.message, message);
        assert.doesNotMatch(err.message, /\n|BEGIN|MII/);
        return true;
      },
    );
  }
  assert.throws(
    () => createFcmProvider({ serviceAccountFile: FCM_TEST_SERVICE_ACCOUNT, url: 'mailto:x@y' }, { log, now: () => T0 }),
    /fcm: mailto:x@y is not an http\(s\) URL: check --fcm-url/,
  );
});
