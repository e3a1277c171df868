/**
 * The APNs provider (src/push/providers/apns.ts) against a local HTTP/2 TLS endpoint that checks
 * requests as Apple does (test/support/push/apns-endpoint.ts): the reference's payload, the ES256
 * provider token and its reuse, each result kind, timeouts, reconnects, and settings errors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { isVtsError } from '../../src/errors.js';
import type { DeliveryItem, ProviderDeps, PushProvider } from '../../src/push/provider.js';
import {
  APNS_PRODUCTION_URL,
  APNS_SANDBOX_URL,
  apnsPayload,
  apnsUrl,
  createApnsProvider,
  fitText,
  type ApnsSettings,
} from '../../src/push/providers/apns.js';
import { startApnsEndpoint, type ApnsEndpoint } from '../support/push/apns-endpoint.js';
import { deliveryItem } from '../support/push/delivery-item.js';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5);
const log = pino({ level: 'silent' });

let apns: ApnsEndpoint;
before(async () => {
  apns = await startApnsEndpoint();
});
after(async () => {
  await apns.close();
});

const item = (over: Partial<DeliveryItem> = {}): DeliveryItem => deliveryItem('apns', { ownerName: 'alice', vehicleId: 'DEMO', keyType: 'production', address: 'a1b2c3d4', ...over });

/** A provider on the endpoint with a clock the test moves. */
function provider(settings: Partial<ApnsSettings> = {}, ca: string | null = apns.ca) {
  const clock = { now: T0 };
  const deps: ProviderDeps = { log, now: () => clock.now, ...(ca === null ? {} : { ca }) };
  const p = createApnsProvider({ ...apns.settings, ...settings }, deps);
  return { p, clock };
}

const never = new AbortController().signal;

async function sendOne(p: PushProvider, it: DeliveryItem, signal = never) {
  const results = await p.send([it], signal);
  assert.equal(results.length, 1);
  return results[0]!;
}

/** The requests to `token`, all as Apple would take them. */
function requestsTo(token: string) {
  const list = apns.requests.filter((r) => r.token === token);
  for (const r of list) assert.equal(r.problem, undefined, `request to ${token}: ${r.problem}`);
  return list;
}

test('apnsPayload: the reference payload, the vehicle named by its label (golden)', () => {
  assert.equal(
    apnsPayload(item()),
    '{"aps":{"alert":"My Leaf (DEMO)\\nCharging stopped","badge":0,"sound":"default"},"vehicleid":"DEMO","alerttype":"A","time":1700000000}',
  );
  assert.equal(
    apnsPayload(item({ vehicleName: '', alertType: 'I', text: 'Sleeping "now"; 12V ok', time: 1 })),
    '{"aps":{"alert":"DEMO\\nSleeping \\"now\\"; 12V ok","badge":0,"sound":"default"},"vehicleid":"DEMO","alerttype":"I","time":1}',
  );
  assert.equal(JSON.parse(apnsPayload(item({ vehicleName: 'demo' }))).aps.alert, 'DEMO\nCharging stopped', 'a name that is the id is not repeated');
});

test('apnsPayload: a text too long for APNs is cut to 4 KB, whole characters, with …', () => {
  const payload = apnsPayload(item({ text: 'ü€'.repeat(2000) }));
  assert.ok(Buffer.byteLength(payload) <= 4096, `${Buffer.byteLength(payload)} bytes`);
  assert.ok(Buffer.byteLength(payload) > 4000, 'as much as fits');
  const alert = JSON.parse(payload).aps.alert as string;
  assert.match(alert, /^My Leaf \(DEMO\)\n(ü€)+ü?…$/);
  assert.equal(fitText('short', () => true), 'short');
  assert.equal(fitText('abc', (t) => t.length <= 2), 'a…');
  assert.equal(fitText('abc', () => false), '');
});

test('apnsUrl and description: sandbox for sandbox subscriptions, production else; a URL serves both', () => {
  assert.equal(apnsUrl({}, 'sandbox'), APNS_SANDBOX_URL);
  assert.equal(apnsUrl({}, 'production'), APNS_PRODUCTION_URL);
  assert.equal(apnsUrl({}, ''), APNS_PRODUCTION_URL);
  assert.equal(apnsUrl({ url: 'https://relay.example:8443/' }, 'sandbox'), 'https://relay.example:8443');
  const own = createApnsProvider({ ...apns.settings, url: undefined }, { log, now: () => T0 });
  assert.equal(own.description, 'on, https://api.push.apple.com (sandbox: https://api.sandbox.push.apple.com), topic com.openvehicles.ovms');
  assert.equal(own.batchSize, 1);
  assert.equal(own.channel, 'apns');
  const { p } = provider();
  assert.equal(p.description, `on, ${apns.url}, topic com.openvehicles.ovms`);
});

test('delivered: POST /3/device/<token> with the headers, the payload and an ES256 token Apple takes', async () => {
  const { p } = provider();
  const it = item({ address: 'deadbeef01' });
  const result = await sendOne(p, it);
  assert.equal(result.kind, 'delivered');
  assert.match(result.detail, /^delivered \(apns-id [0-9A-F-]{36}\)$/);
  const [req, ...more] = requestsTo('deadbeef01');
  assert.equal(more.length, 0);
  assert.equal(req!.method, 'POST');
  assert.equal(req!.path, '/3/device/deadbeef01');
  assert.equal(req!.headers['apns-topic'], 'com.openvehicles.ovms');
  assert.equal(req!.headers['apns-push-type'], 'alert');
  assert.equal(req!.headers['apns-priority'], '10');
  assert.equal(req!.headers['content-type'], 'application/json');
  assert.equal(req!.body, apnsPayload(it));
  assert.deepEqual(req!.decoded?.header, { alg: 'ES256', kid: apns.settings.keyId });
  assert.deepEqual(req!.decoded?.claims, { iss: apns.settings.teamId, iat: T0 / 1000 });
  await p.close();
});

test('a sandbox subscription goes to the configured URL as well', async () => {
  const { p } = provider();
  assert.equal((await sendOne(p, item({ address: 'sandbox01', keyType: 'sandbox' }))).kind, 'delivered');
  assert.equal(requestsTo('sandbox01').length, 1);
  await p.close();
});

test('provider token: reused for 50 minutes over one connection, then a new one', async () => {
  const { p, clock } = provider();
  const before = apns.connections;
  await sendOne(p, item({ address: 'reuse01' }));
  clock.now = T0 + 20 * 60_000;
  await Promise.all([sendOne(p, item({ address: 'reuse01' })), sendOne(p, item({ address: 'reuse01' }))]);
  clock.now = T0 + 50 * 60_000 - 1;
  await sendOne(p, item({ address: 'reuse01' }));
  clock.now = T0 + 50 * 60_000;
  await sendOne(p, item({ address: 'reuse01' }));
  const jwts = requestsTo('reuse01').map((r) => r.jwt);
  assert.equal(jwts.length, 5);
  assert.equal(new Set(jwts.slice(0, 4)).size, 1, 'one token for the first 50 minutes');
  assert.notEqual(jwts[4], jwts[0]);
  assert.equal(requestsTo('reuse01')[4]!.decoded?.claims.iat, (T0 + 50 * 60_000) / 1000);
  assert.equal(apns.connections - before, 1, 'one HTTP/2 connection for all');
  await p.close();
});

test('403 ExpiredProviderToken: temporary, and the next attempt signs a new token', async () => {
  const { p, clock } = provider();
  await sendOne(p, item({ address: 'expired01' }));
  apns.script('expired01', { status: 403, reason: 'ExpiredProviderToken' });
  clock.now = T0 + 60_000;
  const result = await sendOne(p, item({ address: 'expired01' }));
  assert.deepEqual(result, { kind: 'temporary', detail: 'APNs 403 ExpiredProviderToken (token renewed)' });
  clock.now = T0 + 120_000;
  assert.equal((await sendOne(p, item({ address: 'expired01' }))).kind, 'delivered');
  const reqs = requestsTo('expired01');
  assert.equal(reqs[1]!.jwt, reqs[0]!.jwt, 'the expired one was still the cached one');
  assert.notEqual(reqs[2]!.jwt, reqs[1]!.jwt);
  assert.equal(reqs[2]!.decoded?.claims.iat, (T0 + 120_000) / 1000);
  await p.close();
});

test('invalid: 410 Unregistered, 400 BadDeviceToken / DeviceTokenNotForTopic / Unregistered', async () => {
  const { p } = provider();
  const cases: [string, number, string][] = [
    ['gone01', 410, 'Unregistered'],
    ['bad01', 400, 'BadDeviceToken'],
    ['other01', 400, 'DeviceTokenNotForTopic'],
    ['unreg01', 400, 'Unregistered'],
  ];
  for (const [token, status, reason] of cases) {
    apns.script(token, { status, reason });
    assert.deepEqual(await sendOne(p, item({ address: token })), { kind: 'invalid', detail: `APNs ${status} ${reason}` });
    assert.equal(requestsTo(token).length, 1);
  }
  await p.close();
});

test('temporary: 503 and 429 with Retry-After, 500 without', async () => {
  const { p } = provider();
  apns.script('busy01', { status: 503, reason: 'ServiceUnavailable', retryAfter: 120 }, { status: 429, reason: 'TooManyRequests', retryAfter: 5 }, { status: 500, reason: 'InternalServerError' });
  assert.deepEqual(await sendOne(p, item({ address: 'busy01' })), { kind: 'temporary', detail: 'APNs 503 ServiceUnavailable', retryAfter: 120, slowDown: true });
  assert.deepEqual(await sendOne(p, item({ address: 'busy01' })), { kind: 'temporary', detail: 'APNs 429 TooManyRequests', retryAfter: 5 });
  assert.deepEqual(await sendOne(p, item({ address: 'busy01' })), { kind: 'temporary', detail: 'APNs 500 InternalServerError' });
  assert.equal((await sendOne(p, item({ address: 'busy01' }))).kind, 'delivered');
  await p.close();
});

test('permanent: other answers, with the reason Apple gave', async () => {
  const { p } = provider();
  apns.script('perm01', { status: 400, reason: 'PayloadTooLarge' }, { status: 403, reason: 'InvalidProviderToken' }, { status: 413, reason: 'PayloadTooLarge' });
  assert.deepEqual(await sendOne(p, item({ address: 'perm01' })), { kind: 'permanent', detail: 'APNs 400 PayloadTooLarge' });
  assert.deepEqual(await sendOne(p, item({ address: 'perm01' })), { kind: 'permanent', detail: 'APNs 403 InvalidProviderToken' });
  assert.deepEqual(await sendOne(p, item({ address: 'perm01' })), { kind: 'permanent', detail: 'APNs 413 PayloadTooLarge' });
  await p.close();
});

test('a key Apple does not know (another key, team or topic) is permanent, and the endpoint says why', async () => {
  const { p } = provider({ teamId: 'OTHERTEAM1' });
  assert.deepEqual(await sendOne(p, item({ address: 'team01' })), { kind: 'permanent', detail: 'APNs 403 InvalidProviderToken' });
  assert.equal(apns.requests.find((r) => r.token === 'team01')?.problem, 'JWT iss OTHERTEAM1');
  await p.close();
});

test('an answer that does not come: the aborted attempt is temporary, the next request works', async () => {
  const { p } = provider();
  apns.script('hang01', 'hang');
  const controller = new AbortController();
  const count = apns.requests.length;
  const pending = sendOne(p, item({ address: 'hang01' }), controller.signal);
  await apns.waitForRequests(count + 1);
  controller.abort();
  assert.deepEqual(await pending, { kind: 'temporary', detail: 'no answer in time' });
  assert.equal((await sendOne(p, item({ address: 'hang01' }))).kind, 'delivered');
  const aborted = new AbortController();
  aborted.abort();
  assert.deepEqual(await sendOne(p, item({ address: 'hang01' }), aborted.signal), { kind: 'temporary', detail: 'no answer in time' });
  await p.close();
});

test('a dropped connection is replaced: the request is made again on a new one', async () => {
  const { p } = provider();
  const before = apns.connections;
  assert.equal((await sendOne(p, item({ address: 'reconnect01' }))).kind, 'delivered');
  apns.disconnect();
  assert.equal((await sendOne(p, item({ address: 'reconnect01' }))).kind, 'delivered');
  assert.equal((await sendOne(p, item({ address: 'reconnect01' }))).kind, 'delivered');
  assert.equal(apns.connections - before, 2);
  await p.close();
});

test('connection failures are temporary: nothing listening, a certificate not trusted', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const refused = provider({ url: `https://127.0.0.1:${port}` }).p;
  const r1 = await sendOne(refused, item());
  assert.equal(r1.kind, 'temporary');
  assert.match(r1.detail, /^connection failed \(.*ECONNREFUSED.*\)$/);
  await refused.close();

  const untrusted = provider({}, null).p;
  const r2 = await sendOne(untrusted, item({ address: 'untrusted01' }));
  assert.equal(r2.kind, 'temporary');
  assert.equal(r2.detail, 'connection failed (DEPTH_ZERO_SELF_SIGNED_CERT)');
  assert.equal(apns.requests.filter((r) => r.token === 'untrusted01').length, 0);
  await untrusted.close();
});

test('settings errors: one line, VTS_ERR_PUSH_CONFIG, what to do, never the key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-apns-'));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const pkcs8 = (pair: { privateKey: { export(o: object): string | Buffer } }) => String(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const sec1 = String(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }));
  const good = readFileSync(apns.settings.keyFile, 'utf8');
  const cases: [Partial<ApnsSettings>, RegExp][] = [
    [{ keyFile: '' }, /no key file: .*--apns-key\b/],
    [{ keyFile: join(dir, 'missing.p8') }, /cannot read the key file .*missing\.p8 \(ENOENT\): check --apns-key/],
    [{ keyFile: file('text.p8', 'not a key at all') }, /text\.p8 is not an APNs key: it holds no PEM private key; give the \.p8 file/],
    [{ keyFile: file('sec1.p8', sec1) }, /sec1\.p8 is not an APNs key: it holds a PEM "EC PRIVATE KEY", not "PRIVATE KEY" \(PKCS#8\)/],
    [{ keyFile: file('p384.p8', pkcs8(p384)) }, /p384\.p8 is not an APNs key: its EC key is on secp384r1, not P-256/],
    [{ keyFile: file('rsa.p8', pkcs8(rsa)) }, /rsa\.p8 is not an APNs key: it holds a rsa key, not an EC P-256 key/],
    [{ keyFile: file('broken.p8', good.replace(/[A-Za-z]{8}\n/, 'xxxxxxxx\n')) }, /broken\.p8 is not an APNs key: its PKCS#8 private key cannot be parsed/],
    [{ keyId: ' ' }, /no key id: .*--apns-key-id/],
    [{ teamId: '' }, /no team id: .*--apns-team-id/],
    [{ topic: '' }, /no topic: .*--apns-topic/],
    [{ url: 'ftp://example.com' }, /ftp:\/\/example\.com is not an http\(s\) URL: check --apns-url/],
  ];
  for (const [change, message] of cases) {
    assert.throws(
      () => createApnsProvider({ ...apns.settings, ...change }, { log, now: () => T0 }),
      (err: unknown) => {
        assert.ok(isVtsError(err, 'VTS_ERR_PUSH_CONFIG'), String(err));
        assert.match(err.message, message);
        assert.match(err.message, /^a push provider cannot be used with its settings: apns: /);
        assert.doesNotMatch(err.message, /\n|BEGIN|MII|MIG/);
        return true;
      },
    );
  }
});
