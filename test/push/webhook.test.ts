/** The webhook provider (src/push/providers/webhook.ts) against a local receiver. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { NOT_ALLOWED, NO_ANSWER, createWebhookProvider, webhookBody, webhookPayload, webhookSignature } from '../../src/push/providers/webhook.js';
import type { DeliveryItem, ProviderDeps, PushProvider } from '../../src/push/provider.js';
import { addressPolicy, parseAllowList } from '../../src/push/providers/address-policy.js';
import { VERSION } from '../../src/util/version.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { deliveryItem } from '../support/push/delivery-item.js';

const NOW = 1_700_000_000_000;
const deps: ProviderDeps = { log: pino({ level: 'silent' }), now: () => NOW };

let rx: HttpReceiver;
let provider: PushProvider;
const signal = new AbortController().signal;

const item = (over: Partial<DeliveryItem> = {}): DeliveryItem => deliveryItem('webhook', { notificationId: 42, text: 'Charging stopped: "cable" 12 V ✓', appId: '', targetId: 3, address: `${rx.url}/hook`, ...over });

before(async () => {
  rx = await HttpReceiver.start();
  provider = createWebhookProvider(deps, { allow: ['127.0.0.1'] });
});
after(async () => {
  await provider.close();
  await rx.close();
});

test('the JSON document, keys in order', () => {
  const it = item();
  assert.equal(
    webhookBody(it),
    '{"vehicleId":"DEMO1","vehicleName":"My Leaf","alertType":"A","text":"Charging stopped: \\"cable\\" 12 V ✓",' +
      '"time":1700000000,"timeIso":"2023-11-14T22:13:20Z","notificationId":42}',
  );
  assert.deepEqual(Object.keys(webhookPayload(it)), ['vehicleId', 'vehicleName', 'alertType', 'text', 'time', 'timeIso', 'notificationId']);
  // an alert the server computed (issue 30): its event and rule after the notification's id
  const alert = item({ text: 'DEMO1 reached 80 % (62 km)', event: 'soc-reached', rule: 7 });
  assert.equal(
    webhookBody(alert),
    '{"vehicleId":"DEMO1","vehicleName":"My Leaf","alertType":"A","text":"DEMO1 reached 80 % (62 km)",' +
      '"time":1700000000,"timeIso":"2023-11-14T22:13:20Z","notificationId":42,"event":"soc-reached","rule":7}',
  );
});

test('a signed delivery: the receiver verifies the HMAC over the exact body bytes', async () => {
  const before = rx.requests.length;
  const results = await provider.send([item({ secret: 's3cret ✓' })], signal);
  assert.deepEqual(results, [{ kind: 'delivered', detail: 'delivered (HTTP 2xx)' }]);
  const req = rx.requests[before]!;
  assert.equal(req.method, 'POST');
  assert.equal(req.path, '/hook');
  assert.equal(req.headers['content-type'], 'application/json');
  assert.equal(req.headers['user-agent'], `vts/${VERSION}`);
  assert.equal(req.headers['x-vts-timestamp'], '1700000000');
  const expected = createHmac('sha256', Buffer.from('s3cret ✓', 'utf8')).update(req.body).digest();
  const got = String(req.headers['x-vts-signature']);
  assert.match(got, /^sha256=[0-9a-f]{64}$/);
  assert.ok(timingSafeEqual(Buffer.from(got.slice(7), 'hex'), expected));
  assert.equal(webhookSignature(req.body, 's3cret ✓'), got);
  assert.equal(req.text, webhookBody(item()));
  assert.deepEqual(req.json(), webhookPayload(item()));
});

test('without a secret: no signature headers', async () => {
  const before = rx.requests.length;
  assert.deepEqual(await provider.send([item()], signal), [{ kind: 'delivered', detail: 'delivered (HTTP 2xx)' }]);
  const req = rx.requests[before]!;
  assert.equal(req.headers['x-vts-signature'], undefined);
  assert.equal(req.headers['x-vts-timestamp'], undefined);
});

test('user:password in the URL is sent as Basic auth, not in the URL', async () => {
  const before = rx.requests.length;
  const url = new URL(`${rx.url}/auth?x=1`);
  url.username = 'ha';
  url.password = 'p@ss:word';
  assert.equal((await provider.send([item({ address: url.href })], signal))[0]?.kind, 'delivered');
  const req = rx.requests[before]!;
  assert.equal(req.url, '/auth?x=1');
  assert.equal(req.headers.authorization, `Basic ${Buffer.from('ha:p@ss:word').toString('base64')}`);
});

test('answers: 2xx delivered, 429/5xx temporary with Retry-After, other statuses permanent; only the status class is told', async () => {
  rx.script(
    '/answers',
    { status: 204 },
    { status: 503, retryAfter: 7 },
    { status: 429, retryAfter: new Date(NOW + 90_000).toUTCString() },
    { status: 500, body: { error: 'database down' } },
    { status: 404, body: 'no such hook\nmore', headers: { 'content-type': 'text/plain' } },
    { status: 410 },
  );
  const results = [];
  for (let i = 0; i < 6; i++) results.push(...(await provider.send([item({ address: `${rx.url}/answers` })], signal)));
  assert.deepEqual(results, [
    { kind: 'delivered', detail: 'delivered (HTTP 2xx)' },
    { kind: 'temporary', detail: 'HTTP 5xx', retryAfter: 7, slowDown: true },
    { kind: 'temporary', detail: 'HTTP 4xx', retryAfter: 90, slowDown: true },
    { kind: 'temporary', detail: 'HTTP 5xx' },
    { kind: 'permanent', detail: 'HTTP 4xx' },
    { kind: 'permanent', detail: 'HTTP 4xx' },
  ]);
});

test('a redirect is not followed: permanent, the URL is to be updated', async () => {
  rx.script('/old', { status: 301, headers: { location: 'https://user:pw@new.example/hook?token=x' } });
  const before = rx.requests.length;
  assert.deepEqual(await provider.send([item({ address: `${rx.url}/old` })], signal), [
    { kind: 'permanent', detail: 'HTTP 3xx: a redirect: update the URL' },
  ]);
  assert.equal(rx.requests.length, before + 1);
});

test('a URL that is none, or not http(s): permanent, nothing sent', async () => {
  assert.deepEqual(await provider.send([item({ address: 'not a url' })], signal), [{ kind: 'permanent', detail: 'the target is not a URL: update it' }]);
  assert.deepEqual(await provider.send([item({ address: 'ftp://x/y' })], signal), [
    { kind: 'permanent', detail: 'the target is not an http(s) URL (ftp:): update it' },
  ]);
});

test('a hanging receiver: temporary when the signal aborts', async () => {
  rx.script('/slow', { hang: true });
  const ac = new AbortController();
  const before = rx.requests.length;
  const pending = provider.send([item({ address: `${rx.url}/slow` })], ac.signal);
  await rx.waitForRequests(before + 1);
  ac.abort();
  assert.deepEqual(await pending, [{ kind: 'temporary', detail: NO_ANSWER }]);
});

test('nobody listening: temporary, told as no answer (as a timeout is)', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  assert.deepEqual(await provider.send([item({ address: `http://127.0.0.1:${port}/x` })], signal), [
    { kind: 'temporary', detail: NO_ANSWER },
  ]);
});

test('always on, one delivery per request', () => {
  assert.equal(provider.channel, 'webhook');
  assert.equal(provider.batchSize, 1);
  assert.match(provider.description, /^on/);
});

test('a port that answers but not HTTP: told as no answer, as a closed port is', async () => {
  const server = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  try {
    assert.deepEqual(await provider.send([item({ address: `http://127.0.0.1:${port}/x` })], signal), [{ kind: 'temporary', detail: NO_ANSWER }]);
  } finally {
    server.close();
  }
});

test('by default local and private addresses are refused, by IP or by a name that resolves to one: nothing is sent', async () => {
  const strict = createWebhookProvider(deps);
  after(() => strict.close());
  const before = rx.requests.length;
  const port = new URL(rx.url).port;
  for (const address of [`${rx.url}/hook`, `http://localhost:${port}/hook`, `http://[::ffff:127.0.0.1]:${port}/hook`, 'http://169.254.169.254/latest/meta-data']) {
    assert.deepEqual(await strict.send([item({ address })], signal), [{ kind: 'permanent', detail: NOT_ALLOWED }], address);
  }
  assert.equal(rx.requests.length, before, 'nothing reached the receiver');
});

test('an allowed network lets its addresses through, and only those', async () => {
  const lan = createWebhookProvider(deps, { allow: ['127.0.0.0/8'] });
  after(() => lan.close());
  assert.equal((await lan.send([item({ address: `http://localhost:${new URL(rx.url).port}/hook` })], signal))[0]?.kind, 'delivered');
  assert.deepEqual(await lan.send([item({ address: 'http://10.1.2.3/hook' })], signal), [{ kind: 'permanent', detail: NOT_ALLOWED }]);
});

test('the address policy: public allowed, local and private refused unless listed; --webhook-allow parsed strictly', () => {
  const none = addressPolicy();
  for (const ip of ['8.8.8.8', '2a00:1450::1', '100.63.255.255']) assert.equal(none.allows(ip), true, ip);
  for (const ip of ['127.0.0.1', '10.0.0.1', '172.31.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd12::1', 'fe80::1', '::ffff:192.168.1.1']) {
    assert.equal(none.allows(ip), false, ip);
  }
  const lan = addressPolicy(parseAllowList('192.168.1.0/24, fd00::/8'));
  assert.equal(lan.allows('192.168.1.20'), true);
  assert.equal(lan.allows('192.168.2.20'), false);
  assert.equal(lan.allows('fd00::5'), true);
  assert.equal(addressPolicy(parseAllowList('private')).allows('10.0.0.1'), true);
  for (const bad of ['192.168.1.0/33', 'lan', '10.0.0.0/x', 'fd00::/129']) assert.throws(() => parseAllowList(bad), /not an address or network/, bad);
});
