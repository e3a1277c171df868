/**
 * Back-off per endpoint (issue 26): a service that answers 429 or 503 (`slowDown`) gets nothing
 * more until its Retry-After has passed (or a wait that doubles while it keeps asking); the
 * deliveries meanwhile are put off without a request. A channel's one service holds the channel;
 * a user target's server holds only its own deliveries. A real outbox (SQLite, or PostgreSQL with
 * VTS_TEST_DATABASE), a provider that answers as the test says, and the dispatcher's clock in the
 * test's hands.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from '../../src/push/dispatcher.js';
import type { DeliveryItem, PushProvider, SendResult } from '../../src/push/provider.js';
import type { Store } from '../../src/store/store.js';
import { freshStore, seed } from '../store/helpers.js';
import { RULES, notify, subscribe } from '../store/push-helpers.js';

const T = Math.floor(Date.now() / 1000);

/** A provider whose answer to each address the test sets; it counts the requests per address group. */
function scriptedProvider(answer: (item: DeliveryItem) => SendResult, endpointOf?: (item: DeliveryItem) => string): PushProvider & { sent: DeliveryItem[] } {
  const sent: DeliveryItem[] = [];
  return {
    channel: 'fcm',
    description: 'scripted',
    batchSize: 1,
    sent,
    ...(endpointOf ? { endpointOf } : {}),
    async send(items: readonly DeliveryItem[]): Promise<SendResult[]> {
      sent.push(...items);
      return items.map(answer);
    },
    async close() {},
  };
}

async function outbox(t: TestContext, keys: string[]): Promise<{ store: Store; ownerId: number }> {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  for (const [k, key] of keys.entries()) await subscribe(store, owner.id, { appId: `app-${String(k).padStart(2, '0')}`, pushType: 'fcm', key });
  await notify(store, owner.id, T, RULES);
  return { store, ownerId: owner.id };
}

/** Every delivery's attempts, once each has as many as `done` asks. */
async function attemptsWhen(store: Store, ownerId: number, done: (attempts: { state: string; detail: string }[][]) => boolean): Promise<{ state: string; detail: string }[][]> {
  for (let k = 0; ; k++) {
    const ds = (await store.push.listNotifications(ownerId, undefined, 1))[0]!.deliveries.map((d) => d.attempts);
    if (done(ds) || k > 400) return ds;
    await new Promise((r) => setTimeout(r, 25));
  }
}

test("a channel's service answers 429 with Retry-After: one request, the other deliveries put off unsent until it has passed", async (t) => {
  const { store, ownerId } = await outbox(t, Array.from({ length: 20 }, (_, k) => `tok-${k}`));
  let busy = true;
  const provider = scriptedProvider(() => (busy ? { kind: 'temporary', detail: 'HTTP 429', retryAfter: 30, slowDown: true } : { kind: 'delivered', detail: 'HTTP 200' }));
  let now = T;
  const o = { ...DEFAULT_DISPATCHER_OPTIONS, claimer: 'node-a', concurrency: 1, pollMs: 20 };
  const d = new Dispatcher([provider], store.push, o, pino({ level: 'silent' }), () => now);
  t.after(() => d.stop());
  await d.start();
  // what was claimed ahead is put off unsent, and nothing more is claimed: a few more looks change nothing
  const first = await attemptsWhen(store, ownerId, (ds) => ds.some((a) => a[0]?.detail.startsWith('not sent: the service asked to slow down')));
  for (let k = 0; k < 10; k++) {
    d.kick();
    await new Promise((r) => setTimeout(r, 30));
  }
  assert.equal(provider.sent.length, 1, 'one request, then nothing while the service asked to wait');
  assert.ok(first.every((a) => a.every((x) => x.state === 'pending')));

  // after the wait: the service answers again, everything goes
  busy = false;
  now = T + 31;
  d.kick();
  await attemptsWhen(store, ownerId, (ds) => ds.every((a) => a.at(-1)!.state === 'delivered'));
  assert.equal(provider.sent.length, 21, 'each delivery once more');
});

test("a user target's server asks to slow down (503): only its own deliveries wait, the other server's go", async (t) => {
  const keys = Array.from({ length: 16 }, (_, k) => (k % 2 === 0 ? `busy-${k}` : `fine-${k}`));
  const { store, ownerId } = await outbox(t, keys);
  const provider = scriptedProvider(
    (item) => (item.address.startsWith('busy') ? { kind: 'temporary', detail: 'HTTP 5xx', slowDown: true } : { kind: 'delivered', detail: 'HTTP 2xx' }),
    (item) => item.address.split('-')[0]!,
  );
  const o = { ...DEFAULT_DISPATCHER_OPTIONS, claimer: 'node-a', concurrency: 1, pollMs: 20 };
  const d = new Dispatcher([provider], store.push, o, pino({ level: 'silent' }), () => T);
  t.after(() => d.stop());
  await d.start();
  await attemptsWhen(store, ownerId, (ds) => ds.every((a) => a.length >= 1));
  assert.equal(provider.sent.filter((i) => i.address.startsWith('busy')).length, 1, 'one request to the server that asked to wait');
  assert.equal(provider.sent.filter((i) => i.address.startsWith('fine')).length, 8, 'every delivery to the other');
});
