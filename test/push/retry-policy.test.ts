/** The dispatcher's retry policy (src/push/dispatcher.ts outcomeOf): back-off, Retry-After, giving up. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DISPATCHER_OPTIONS, outcomeOf } from '../../src/push/dispatcher.js';
import type { DeliveryItem } from '../../src/store/push-store.js';

const o = { ...DEFAULT_DISPATCHER_OPTIONS, retryFirstSeconds: 10, retryMaxSeconds: 1800, giveUpSeconds: 3600, receiptDelaySeconds: 60 };
const T = 1_800_000_000;

function item(over: Partial<DeliveryItem> = {}): DeliveryItem {
  return {
    id: 1, notificationId: 1, channel: 'fcm', state: 'pending', attempts: 0, ownerId: 1, ownerName: 'demo', vehicleId: 'DEMO1', vehicleName: '',
    alertType: 'A', text: 'x', time: T, event: null, rule: null, heldUntil: null, appId: 'app', targetId: 0, keyType: 'production', address: 'tok', secret: '', receipt: '', ...over,
  };
}

test('delivered and permanent end the delivery', () => {
  assert.deepEqual(outcomeOf(item(), { kind: 'delivered', detail: 'ok' }, T, o), { state: 'delivered', detail: 'ok' });
  assert.deepEqual(outcomeOf(item(), { kind: 'permanent', detail: 'HTTP 400' }, T, o), { state: 'failed', detail: 'HTTP 400' });
});

test('an invalid address removes the subscription', () => {
  const out = outcomeOf(item(), { kind: 'invalid', detail: 'UNREGISTERED' }, T, o);
  assert.equal(out.state, 'removed');
});

test('temporary failures back off exponentially, at most retryMaxSeconds', () => {
  const waits = [0, 1, 2, 3, 10].map((attempts) => {
    const out = outcomeOf(item({ attempts }), { kind: 'temporary', detail: 'HTTP 503' }, T, { ...o, giveUpSeconds: 86400 });
    assert.equal(out.state, 'pending');
    return out.state === 'pending' ? out.nextAt - T : -1;
  });
  assert.deepEqual(waits, [10, 20, 40, 80, 1800]);
});

test('Retry-After is honoured when longer than the back-off', () => {
  const out = outcomeOf(item(), { kind: 'temporary', detail: 'HTTP 429', retryAfter: 120 }, T, o);
  assert.equal(out.state === 'pending' && out.nextAt, T + 120);
  const shorter = outcomeOf(item({ attempts: 3 }), { kind: 'temporary', detail: 'HTTP 429', retryAfter: 1 }, T, o);
  assert.equal(shorter.state === 'pending' && shorter.nextAt, T + 80);
});

test('a retry after the give-up time is a failure', () => {
  const out = outcomeOf(item({ attempts: 4 }), { kind: 'temporary', detail: 'HTTP 503' }, T + 3500, o);
  assert.equal(out.state, 'failed');
  assert.match(out.detail, /gave up after 5 tries: HTTP 503/);
});

test('held for quiet hours: the give-up time counts from their end, not from when it was raised', () => {
  // raised at T, held 9 h (o.giveUpSeconds is 1 h): released at T + 9 h, its first try fails
  const held = item({ heldUntil: T + 9 * 3600 });
  const out = outcomeOf(held, { kind: 'temporary', detail: 'HTTP 503' }, T + 9 * 3600, o);
  assert.equal(out.state, 'pending', 'tried again');
  const late = outcomeOf({ ...held, attempts: 4 }, { kind: 'temporary', detail: 'HTTP 503' }, T + 9 * 3600 + 3500, o);
  assert.equal(late.state, 'failed', 'an hour after the release it gives up');
  const wait = outcomeOf({ ...held, channel: 'expo', state: 'receipt', receipt: 'r1' }, { kind: 'wait', detail: 'not yet' }, T + 9 * 3600 + 60, o);
  assert.equal(wait.state, 'receipt', 'a receipt is still looked for');
});

test('Expo: accepted waits for its receipt; a missing receipt is looked for again, then counted as delivered', () => {
  const accepted = outcomeOf(item({ channel: 'expo' }), { kind: 'accepted', detail: 'ticket', receipt: 'r1' }, T, o);
  assert.deepEqual(accepted, { state: 'receipt', detail: 'ticket', receipt: 'r1', nextAt: T + 60 });
  const wait = outcomeOf(item({ channel: 'expo', state: 'receipt', receipt: 'r1' }), { kind: 'wait', detail: 'not yet' }, T + 60, o);
  assert.deepEqual(wait, { state: 'receipt', detail: 'not yet', receipt: 'r1', nextAt: T + 120 });
  const late = outcomeOf(item({ channel: 'expo', state: 'receipt', receipt: 'r1' }), { kind: 'wait', detail: 'not yet' }, T + 3590, o);
  assert.equal(late.state, 'delivered');
});
