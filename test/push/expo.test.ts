/** The Expo provider (src/push/providers/expo.ts) against a local stand-in of Expo's push API. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { createExpoProvider, expoMessage } from '../../src/push/providers/expo.js';
import type { DeliveryItem, ProviderDeps, PushProvider } from '../../src/push/provider.js';
import { EXPO_RECEIPTS_PATH, EXPO_SEND_PATH, ExpoEndpoint } from '../support/push/expo-endpoint.js';
import { deliveryItem } from '../support/push/delivery-item.js';

const NOW = 1_700_000_000_000;
const deps: ProviderDeps = { log: pino({ level: 'silent' }), now: () => NOW };

const item = (over: Partial<DeliveryItem> = {}): DeliveryItem => deliveryItem('expo', { notificationId: 10, vehicleName: '', keyType: 'simple', address: 'ExponentPushToken[aaa]', ...over });

let expo: ExpoEndpoint;
let provider: PushProvider;
const signal = new AbortController().signal;

before(async () => {
  expo = await ExpoEndpoint.start({ accessToken: 'expo-access' });
  provider = createExpoProvider({ url: `${expo.url}/`, accessToken: 'expo-access' }, deps);
});
after(async () => {
  await provider.close();
  await expo.close();
});

test('the message as the reference builds it, with the vehicle label', () => {
  assert.deepEqual(expoMessage(item({ vehicleName: 'My Leaf', alertType: 'I', text: 'Hello' })), {
    to: 'ExponentPushToken[aaa]',
    title: 'Open Vehicles My Leaf (DEMO1)',
    body: 'Hello',
    sound: 'default',
    badge: 0,
    data: { vehicleid: 'DEMO1', alerttype: 'I', sent: 1_700_000_000 },
  });
  assert.equal(expoMessage(item({ vehicleName: 'demo1' })).title, 'Open Vehicles DEMO1');
});

test('batch size and description', () => {
  assert.equal(provider.batchSize, 90);
  assert.equal(provider.channel, 'expo');
  assert.match(provider.description, /^on, http:\/\/127\.0\.0\.1:\d+, with an access token$/);
  assert.ok(!provider.description.includes('expo-access'));
  assert.equal(createExpoProvider({}, deps).description, 'on, https://exp.host');
});

test('pending deliveries go in one send request; ok tickets are accepted with their id', async () => {
  const before = expo.requests.length;
  const results = await provider.send(
    [item({ id: 1, address: 'ExponentPushToken[a1]' }), item({ id: 2, address: 'ExponentPushToken[a2]', vehicleName: 'Car', text: 'Alarm' })],
    signal,
  );
  const requests = expo.requests.slice(before);
  assert.equal(requests.length, 1);
  const req = requests[0]!;
  assert.equal(req.method, 'POST');
  assert.equal(req.path, EXPO_SEND_PATH);
  assert.equal(req.headers['content-type'], 'application/json');
  assert.equal(req.headers.accept, 'application/json');
  assert.equal(req.headers.authorization, 'Bearer expo-access');
  assert.deepEqual(req.json(), [
    {
      to: 'ExponentPushToken[a1]',
      title: 'Open Vehicles DEMO1',
      body: 'Charging stopped',
      sound: 'default',
      badge: 0,
      data: { vehicleid: 'DEMO1', alerttype: 'A', sent: 1_700_000_000 },
    },
    {
      to: 'ExponentPushToken[a2]',
      title: 'Open Vehicles Car (DEMO1)',
      body: 'Alarm',
      sound: 'default',
      badge: 0,
      data: { vehicleid: 'DEMO1', alerttype: 'A', sent: 1_700_000_000 },
    },
  ]);
  const [t1, t2] = [expo.received.at(-2)!.ticket!, expo.received.at(-1)!.ticket!];
  assert.deepEqual(results, [
    { kind: 'accepted', detail: `accepted (ticket ${t1})`, receipt: t1 },
    { kind: 'accepted', detail: `accepted (ticket ${t2})`, receipt: t2 },
  ]);
});

test('ticket errors: DeviceNotRegistered invalid, MessageRateExceeded temporary, others permanent; no token in the detail', async () => {
  expo
    .scriptToken('ExponentPushToken[gone]', { error: 'DeviceNotRegistered' })
    .scriptToken('ExponentPushToken[busy]', { error: 'MessageRateExceeded' })
    .scriptToken('ExponentPushToken[big]', { error: 'MessageTooBig', message: 'too big' });
  const results = await provider.send(
    [
      item({ address: 'ExponentPushToken[gone]' }),
      item({ address: 'ExponentPushToken[ok]' }),
      item({ address: 'ExponentPushToken[busy]' }),
      item({ address: 'ExponentPushToken[big]' }),
    ],
    signal,
  );
  assert.deepEqual(
    results.map((r) => r.kind),
    ['invalid', 'accepted', 'temporary', 'permanent'],
  );
  assert.equal(results[0]!.detail, 'ticket error DeviceNotRegistered: "<token>" failed: DeviceNotRegistered');
  assert.equal(results[3]!.detail, 'ticket error MessageTooBig: too big');
  for (const r of results) assert.ok(!r.detail.includes('ExponentPushToken['), r.detail);
});

test('receipts: one getReceipts request; ok delivered, absent wait, errors mapped', async () => {
  // tickets to check: send five messages first
  expo.scriptReceipt('ExponentPushToken[r-wait]', 'absent', 'ok');
  expo.scriptReceipt('ExponentPushToken[r-gone]', { error: 'DeviceNotRegistered' });
  expo.scriptReceipt('ExponentPushToken[r-rate]', { error: 'MessageRateExceeded' });
  expo.scriptReceipt('ExponentPushToken[r-cred]', { error: 'InvalidCredentials', message: 'bad FCM key' });
  const tokens = ['r-ok', 'r-wait', 'r-gone', 'r-rate', 'r-cred'].map((t) => `ExponentPushToken[${t}]`);
  const accepted = await provider.send(
    tokens.map((address) => item({ address })),
    signal,
  );
  const checks = accepted.map((r, i) => {
    assert.equal(r.kind, 'accepted');
    return item({ id: 100 + i, state: 'receipt', address: tokens[i]!, receipt: (r as { receipt: string }).receipt });
  });
  const unknown = item({ id: 200, state: 'receipt', address: 'ExponentPushToken[x]', receipt: 'no-such-ticket' });
  const before = expo.requests.length;
  const results = await provider.send([...checks, unknown], signal);
  const requests = expo.requests.slice(before);
  assert.equal(requests.length, 1);
  assert.equal(requests[0]!.path, EXPO_RECEIPTS_PATH);
  assert.equal(requests[0]!.headers.authorization, 'Bearer expo-access');
  assert.deepEqual(requests[0]!.json(), { ids: [...checks.map((c) => c.receipt), 'no-such-ticket'] });
  assert.deepEqual(results, [
    { kind: 'delivered', detail: 'delivered (receipt ok)' },
    { kind: 'wait', detail: 'receipt not there yet' },
    { kind: 'invalid', detail: 'receipt error DeviceNotRegistered: receipt failed: DeviceNotRegistered' },
    { kind: 'temporary', detail: 'receipt error MessageRateExceeded: receipt failed: MessageRateExceeded' },
    { kind: 'permanent', detail: 'receipt error InvalidCredentials: bad FCM key' },
    { kind: 'wait', detail: 'receipt not there yet' },
  ]);
  // the receipt that was not there comes later
  const again = await provider.send([checks[1]!], signal);
  assert.deepEqual(again, [{ kind: 'delivered', detail: 'delivered (receipt ok)' }]);
});

test('a send and a receipt check in one call: two requests, results in item order', async () => {
  const [first] = await provider.send([item({ address: 'ExponentPushToken[m1]' })], signal);
  assert.equal(first?.kind, 'accepted');
  const receipt = (first as { receipt: string }).receipt;
  const before = expo.requests.length;
  const results = await provider.send(
    [
      item({ id: 5, address: 'ExponentPushToken[m2]' }),
      item({ id: 6, state: 'receipt', address: 'ExponentPushToken[m1]', receipt }),
      item({ id: 7, address: 'ExponentPushToken[m3]' }),
    ],
    signal,
  );
  const paths = expo.requests
    .slice(before)
    .map((r) => r.path)
    .sort();
  assert.deepEqual(paths, [EXPO_RECEIPTS_PATH, EXPO_SEND_PATH].sort());
  assert.deepEqual(
    results.map((r) => r.kind),
    ['accepted', 'delivered', 'accepted'],
  );
  const sent = expo.requests.slice(before).find((r) => r.path === EXPO_SEND_PATH)!;
  assert.deepEqual(
    sent.json<{ to: string }[]>().map((m) => m.to),
    ['ExponentPushToken[m2]', 'ExponentPushToken[m3]'],
  );
});

test('a receipt delivery without a ticket is not sent again', async () => {
  const before = expo.requests.length;
  const results = await provider.send([item({ state: 'receipt', receipt: '' })], signal);
  assert.equal(expo.requests.length, before);
  assert.equal(results[0]?.kind, 'permanent');
});

test('a send request failing as a whole: 5xx/429 temporary with Retry-After (429 and 503: slow down), 4xx permanent', async () => {
  expo.scriptRequest('send', { status: 503, retryAfter: 30, body: 'down' });
  assert.deepEqual(await provider.send([item(), item({ id: 2 })], signal), [
    { kind: 'temporary', detail: 'HTTP 503', retryAfter: 30, slowDown: true },
    { kind: 'temporary', detail: 'HTTP 503', retryAfter: 30, slowDown: true },
  ]);
  expo.scriptRequest('send', { status: 429 });
  assert.deepEqual(await provider.send([item()], signal), [{ kind: 'temporary', detail: 'HTTP 429', slowDown: true }]);
  expo.scriptRequest('send', { status: 400, body: { errors: [{ code: 'VALIDATION_ERROR', message: '"to" is invalid' }] } });
  assert.deepEqual(await provider.send([item()], signal), [{ kind: 'permanent', detail: 'HTTP 400: VALIDATION_ERROR: "to" is invalid' }]);
});

test('a wrong access token is permanent', async () => {
  const wrong = createExpoProvider({ url: expo.url }, deps);
  assert.deepEqual(await wrong.send([item()], signal), [{ kind: 'permanent', detail: 'HTTP 401: UNAUTHORIZED: The bearer token is invalid.' }]);
  assert.equal(expo.requests.at(-1)!.headers.authorization, undefined);
});

test('a receipt check failing as a whole waits (the message is not sent again); a 4xx gives up', async () => {
  const check = item({ state: 'receipt', receipt: 'ticket-1' });
  expo.scriptRequest('receipts', { status: 502 });
  assert.deepEqual(await provider.send([check], signal), [{ kind: 'wait', detail: 'receipt check failed: HTTP 502' }]);
  expo.scriptRequest('receipts', { status: 403, body: { errors: [{ code: 'FORBIDDEN', message: 'no' }] } });
  assert.deepEqual(await provider.send([check], signal), [{ kind: 'permanent', detail: 'receipt check refused: HTTP 403: FORBIDDEN: no' }]);
});

test('a hanging endpoint: the attempt gives up when its signal aborts', async () => {
  expo.scriptRequest('send', { hang: true });
  expo.scriptRequest('receipts', { hang: true });
  const ac = new AbortController();
  const before = expo.requests.length;
  const pending = provider.send([item(), item({ state: 'receipt', receipt: 'ticket-1' })], ac.signal);
  await expo.waitForRequests(before + 2);
  ac.abort();
  assert.deepEqual(await pending, [
    { kind: 'temporary', detail: 'no answer in time' },
    { kind: 'wait', detail: 'receipt check failed: no answer in time' },
  ]);
});

test('nobody listening: a connection error is temporary', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const down = createExpoProvider({ url: `http://127.0.0.1:${port}` }, deps);
  const [r] = await down.send([item()], signal);
  assert.equal(r?.kind, 'temporary');
  assert.match(r!.detail, /^connection failed \(ECONNREFUSED\)$/);
});
