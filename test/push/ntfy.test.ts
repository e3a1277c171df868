/** The ntfy provider (src/push/providers/ntfy.ts) against a local receiver. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { NO_ANSWER } from '../../src/push/providers/webhook.js';
import { createNtfyProvider, headerValue, ntfyPriority, ntfyRequest, ntfyTags } from '../../src/push/providers/ntfy.js';
import type { DeliveryItem, ProviderDeps, PushProvider } from '../../src/push/provider.js';
import { VERSION } from '../../src/util/version.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { deliveryItem } from '../support/push/delivery-item.js';

const NOW = 1_700_000_000_000;
const deps: ProviderDeps = { log: pino({ level: 'silent' }), now: () => NOW };

let rx: HttpReceiver;
let provider: PushProvider;
const signal = new AbortController().signal;

const item = (over: Partial<DeliveryItem> = {}): DeliveryItem => deliveryItem('ntfy', { notificationId: 7, vehicleName: '', alertType: 'I', text: 'Charge complete, 80 %', appId: '', targetId: 4, address: `${rx.url}/mytopic`, ...over });

before(async () => {
  rx = await HttpReceiver.start();
  provider = createNtfyProvider(deps, { allow: ['127.0.0.1'] });
});
after(async () => {
  await provider.close();
  await rx.close();
});

test('priority and tags per alert type', () => {
  assert.deepEqual(
    ['A', 'E', 'I', 'X', ''].map((t) => [ntfyPriority(t), ntfyTags(t)]),
    [
      [4, 'warning'],
      [4, 'rotating_light'],
      [3, 'information_source'],
      [3, 'bell'],
      [3, 'bell'],
    ],
  );
});

test('the request: text body, the vehicle as title', () => {
  assert.deepEqual(ntfyRequest(item({ alertType: 'A', vehicleName: 'Leaf' })), {
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'user-agent': `vts/${VERSION}`,
      title: 'Leaf (DEMO1)',
      priority: '4',
      tags: 'warning',
    },
    body: 'Charge complete, 80 %',
  });
  // not ASCII: RFC 2047, which ntfy decodes; never a line break in a header
  assert.equal(headerValue('Zoë'), `=?UTF-8?B?${Buffer.from('Zoë').toString('base64')}?=`);
  assert.equal(headerValue('a\r\nb'), 'a b');
});

test('delivered to the topic URL', async () => {
  const before = rx.requests.length;
  rx.script('/mytopic', { status: 200, body: { id: 'abc', event: 'message' } });
  assert.deepEqual(await provider.send([item({ alertType: 'E', vehicleName: 'Zoë', text: 'Vehicle Alert Code: RT/5 (00000001)' })], signal), [
    { kind: 'delivered', detail: 'delivered (HTTP 2xx)' },
  ]);
  const req = rx.requests[before]!;
  assert.equal(req.method, 'POST');
  assert.equal(req.url, '/mytopic');
  assert.equal(req.text, 'Vehicle Alert Code: RT/5 (00000001)');
  assert.equal(req.headers.title, `=?UTF-8?B?${Buffer.from('Zoë (DEMO1)').toString('base64')}?=`);
  assert.equal(req.headers.priority, '4');
  assert.equal(req.headers.tags, 'rotating_light');
  assert.equal(req.headers.authorization, undefined);
});

test('user:password in the topic URL: Basic auth, stripped from the URL', async () => {
  const before = rx.requests.length;
  const address = rx.url.replace('http://', 'http://phil:top%20secret@') + '/private';
  assert.equal((await provider.send([item({ address })], signal))[0]?.kind, 'delivered');
  const req = rx.requests[before]!;
  assert.equal(req.url, '/private');
  assert.equal(req.headers.authorization, `Basic ${Buffer.from('phil:top secret').toString('base64')}`);
});

test('answers as for webhooks (status classes)', async () => {
  rx.script(
    '/limited',
    { status: 429, retryAfter: 12, body: { code: 42901, http: 429, error: 'limit reached: too many requests' } },
    { status: 403, body: { code: 40301, http: 403, error: 'forbidden' } },
    { status: 502 },
  );
  const results = [];
  for (let i = 0; i < 3; i++) results.push(...(await provider.send([item({ address: `${rx.url}/limited` })], signal)));
  assert.deepEqual(results, [
    { kind: 'temporary', detail: 'HTTP 4xx', retryAfter: 12, slowDown: true },
    { kind: 'permanent', detail: 'HTTP 4xx' },
    { kind: 'temporary', detail: 'HTTP 5xx' },
  ]);
});

test('a hanging server: temporary when the signal aborts', async () => {
  rx.script('/slow', { hang: true });
  const ac = new AbortController();
  const before = rx.requests.length;
  const pending = provider.send([item({ address: `${rx.url}/slow` })], ac.signal);
  await rx.waitForRequests(before + 1);
  ac.abort();
  assert.deepEqual(await pending, [{ kind: 'temporary', detail: NO_ANSWER }]);
});

test('always on, one delivery per request', () => {
  assert.equal(provider.channel, 'ntfy');
  assert.equal(provider.batchSize, 1);
});
