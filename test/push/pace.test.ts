/**
 * The delivery pace: while the server's event loop is busy, each provider gets a share of its
 * requests in flight (paceFor); the dispatcher holds to it, claims ahead at most 32 (or two rounds
 * of what it may send, when they are more), and goes back to full speed when the load drops. A
 * real outbox (SQLite, or PostgreSQL with VTS_TEST_DATABASE) and a provider that answers when the
 * test says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { paceFor } from '../../src/push/delivery-thread.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from '../../src/push/dispatcher.js';
import type { DeliveryItem, PushProvider, SendResult } from '../../src/push/provider.js';
import { freshStore, seed } from '../store/helpers.js';
import { RULES, notify, subscribe } from '../store/push-helpers.js';

test('paceFor: all of the concurrency while the loop has room, a half, then a quarter as it fills', () => {
  assert.deepEqual([0, 0.5, 0.749, 0.75, 0.89, 0.9, 1].map(paceFor), [1, 1, 1, 0.5, 0.5, 0.25, 0.25]);
});

/** A provider whose sends wait until the test lets them go; it remembers the most in flight. */
function heldProvider(): PushProvider & { inFlight: number; most: number; sent: number; waiting(n: number): Promise<void>; release(): void } {
  let release: (() => void)[] = [];
  let waiters: { n: number; resolve: () => void }[] = [];
  const p = {
    channel: 'fcm' as const,
    description: 'held',
    batchSize: 1,
    inFlight: 0,
    most: 0,
    sent: 0,
    async send(items: readonly DeliveryItem[], signal: AbortSignal): Promise<SendResult[]> {
      p.inFlight++;
      p.sent++;
      p.most = Math.max(p.most, p.inFlight);
      waiters = waiters.filter((w) => (p.inFlight >= w.n ? (w.resolve(), false) : true));
      await new Promise<void>((r) => {
        release.push(r);
        signal.addEventListener('abort', () => r(), { once: true });
      });
      p.inFlight--;
      return items.map(() => ({ kind: 'delivered', detail: 'HTTP 200' }));
    },
    async close() {},
    waiting: (n: number) => new Promise<void>((resolve) => (p.inFlight >= n ? resolve() : waiters.push({ n, resolve }))),
    release() {
      const r = release;
      release = [];
      for (const f of r) f();
    },
  };
  return p;
}

test('a paced dispatcher keeps to its share of requests in flight, and to full speed again after', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  for (let k = 0; k < 40; k++) await subscribe(store, owner.id, { appId: `app-${String(k).padStart(2, '0')}`, pushType: 'fcm', key: `tok-${k}` });
  const now = Math.floor(Date.now() / 1000);
  await notify(store, owner.id, now, RULES);

  const provider = heldProvider();
  const d = new Dispatcher([provider], store.push, { ...DEFAULT_DISPATCHER_OPTIONS, claimer: 'node-a', pollMs: 60_000 }, pino({ level: 'silent' }), () => Math.floor(Date.now() / 1000));
  t.after(() => d.stop());
  d.pace(0.25);
  await d.start();
  await provider.waiting(4);
  // node-a holds what it sends (4) and 32 claimed ahead (the fewest it reaches for, however few
  // the paced slots), no more
  const claimed = await store.push.claimDeliveries('fcm', 100, now + 1, 'node-b', now + 60);
  assert.equal(claimed.length, 40 - 36);
  await store.push.finishAttempts('node-b', now + 1, claimed.map((c) => ({ id: c.id, outcome: { state: 'pending', detail: 'later', nextAt: now } })));
  assert.equal(provider.inFlight, 4);
  provider.release();
  await provider.waiting(4);
  assert.equal(provider.most, 4, 'never more than a quarter of 16');

  d.pace(1);
  d.kick('fcm');
  await provider.waiting(16);
  assert.equal(provider.most, 16);
  while (provider.sent < 40 || provider.inFlight > 0) {
    provider.release();
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(provider.sent, 40, 'each delivery once');
});
