/**
 * Claims and attempts of the push outbox (src/store/push-store.ts) on SQLite, or on PostgreSQL
 * with VTS_TEST_DATABASE: leases, several stores and processes claiming from one database, each
 * outcome of an attempt, retries that wait for their time, subscriptions that went away or
 * changed, and the `removed` outcome.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { DeliveryItem } from '../../src/store/push-store.js';
import type { Store } from '../../src/store/store.js';
import { freshPlace, freshStore, seed } from './helpers.js';
import { RULES, notify, subscribe } from './push-helpers.js';

test('claims: due deliveries of one channel, oldest first, with what a provider needs; a lease keeps them from others until it expires; a stale claimer finishes nothing', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'app', pushType: 'apns', key: 'tok', keyType: 'sandbox' });
  await subscribe(store, owner.id, { appId: 'other', pushType: 'fcm', key: 'ftok' });
  const hook = await store.push.addTarget(owner.id, 'webhook', 'https://hooks.example/a', 's3cret', 1);
  const n1 = await notify(store, owner.id, 300, RULES, 'DEMO1', 'third');
  await notify(store, owner.id, 100, RULES, 'DEMO1', 'first');
  await notify(store, owner.id, 200, RULES, 'DEMO1', 'second');
  await notify(store, owner.id, 1000, RULES, 'DEMO1', 'later');

  const a = await store.push.claimDeliveries('apns', 2, 300, 'node-a', 330);
  assert.deepEqual(a.map((i) => i.text), ['first', 'second']);
  const b = await store.push.claimDeliveries('apns', 10, 300, 'node-b', 330);
  assert.deepEqual(b.map((i) => i.text), ['third'], 'not what node-a holds, nor what is not due');
  assert.deepEqual(b[0], {
    id: b[0]!.id,
    notificationId: n1.id,
    channel: 'apns',
    state: 'pending',
    attempts: 0,
    ownerId: owner.id,
    ownerName: 'demo',
    vehicleId: 'DEMO1',
    vehicleName: 'Demo car',
    alertType: 'A',
    text: 'third',
    time: 300,
    event: null,
    rule: null,
    heldUntil: null,
    appId: 'app',
    targetId: 0,
    keyType: 'sandbox',
    address: 'tok',
    secret: '',
    receipt: '',
  } satisfies DeliveryItem);
  const [w] = await store.push.claimDeliveries('webhook', 1, 300, 'node-a', 330);
  assert.deepEqual([w?.targetId, w?.address, w?.secret, w?.appId, w?.keyType, w?.text], [hook.id, 'https://hooks.example/a', 's3cret', '', '', 'first']);

  assert.deepEqual(await store.push.claimDeliveries('apns', 10, 329, 'node-b', 400), [], 'leases still held');
  const again = await store.push.claimDeliveries('apns', 10, 330, 'node-b', 400);
  assert.deepEqual(again.map((i) => [i.text, i.attempts]), [['first', 0], ['second', 0], ['third', 0]], 'expired leases are taken again');

  const first = again[0]!.id;
  assert.equal(await store.push.finishAttempt(first, 'node-a', 331, { state: 'delivered', detail: 'late' }), false, 'node-a lost it');
  assert.equal(await store.push.finishAttempt(first, 'node-b', 331, { state: 'delivered', detail: 'HTTP 200' }), true);
  assert.equal(await store.push.finishAttempt(first, 'node-b', 332, { state: 'delivered', detail: 'twice' }), false, 'no longer held');
  const views = await store.push.listNotifications(owner.id, undefined, 10);
  const d = views.find((v) => v.text === 'first')!.deliveries.find((x) => x.id === first)!;
  assert.deepEqual(d.attempts, [{ time: 331, state: 'delivered', detail: 'HTTP 200' }]);
  assert.equal(d.state, 'delivered');
  assert.deepEqual(await store.push.claimDeliveries('apns', 0, 10_000, 'node-c', 10_100), []);
});

test('finishAttempt: each outcome sets the state, counts the attempt and releases the claim; a retry waits for its time; a receipt is checked at its time', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'app', pushType: 'expo', key: 'ExponentPushToken[x]', keyType: 'simple' });
  const target = await store.push.addTarget(owner.id, 'ntfy', 'https://ntfy.example/t', '', 1);
  await notify(store, owner.id, 100);

  const claim = async (now: number): Promise<DeliveryItem | undefined> => {
    const items = await store.push.claimDeliveries('expo', 10, now, 'n', now + 30);
    assert.ok(items.length <= 1);
    return items[0];
  };
  const item = (await claim(100))!;
  assert.equal(await store.push.finishAttempt(item.id, 'n', 101, { state: 'pending', detail: 'HTTP 503', nextAt: 500 }), true);
  assert.equal(await claim(499), undefined, 'a retry is not due before its time');
  const retry = (await claim(500))!;
  assert.deepEqual([retry.id, retry.state, retry.attempts, retry.receipt], [item.id, 'pending', 1, '']);
  assert.ok(await store.push.finishAttempt(item.id, 'n', 501, { state: 'receipt', detail: 'ticket t-1', receipt: 't-1', nextAt: 800 }));
  assert.equal(await claim(799), undefined);
  const check = (await claim(800))!;
  assert.deepEqual([check.state, check.attempts, check.receipt], ['receipt', 2, 't-1']);
  assert.ok(await store.push.finishAttempt(item.id, 'n', 801, { state: 'delivered', detail: 'receipt ok' }));
  assert.equal(await claim(10_000), undefined);
  assert.deepEqual([...(await store.push.countOpen())], [['ntfy', 1]]);

  const [n] = await store.push.listNotifications(owner.id, 'DEMO1', 1);
  assert.deepEqual(n!.deliveries[0], {
    id: item.id,
    channel: 'expo',
    appId: 'app',
    targetId: 0,
    state: 'delivered',
    attempts: [
      { time: 101, state: 'pending', detail: 'HTTP 503' },
      { time: 501, state: 'receipt', detail: 'ticket t-1' },
      { time: 801, state: 'delivered', detail: 'receipt ok' },
    ],
  });
  assert.deepEqual((await store.push.listSubscriptions(owner.id)).map((s) => [s.lastResult, s.lastTime]), [['receipt ok', 801]]);

  // a target's delivery fails for good: its last result
  const [nt] = await store.push.claimDeliveries('ntfy', 10, 100, 'n', 130);
  assert.equal(nt?.targetId, target.id);
  assert.ok(await store.push.finishAttempt(nt!.id, 'n', 102, { state: 'failed', detail: 'HTTP 400' }));
  assert.deepEqual((await store.push.listTargets(owner.id)).map((x) => [x.lastResult, x.lastTime]), [['HTTP 400', 102]]);
  assert.deepEqual([...(await store.push.countOpen())], []);
  // a `removed` outcome of a target ends the delivery and keeps the target
  await notify(store, owner.id, 900);
  const [nt2] = await store.push.claimDeliveries('ntfy', 10, 900, 'n', 930);
  assert.ok(await store.push.finishAttempt(nt2!.id, 'n', 901, { state: 'removed', detail: 'HTTP 410' }));
  assert.equal((await store.push.listTargets(owner.id)).length, 1);
});

test('finishAttempts records several outcomes in one go, an answer each in order; one not held changes nothing of the others', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'app', pushType: 'fcm', key: 'ftok' });
  for (const text of ['one', 'two', 'three']) await notify(store, owner.id, 100, RULES, 'DEMO1', text);
  const [a, b, c] = await store.push.claimDeliveries('fcm', 10, 100, 'node-a', 130);
  // the leases run out; node-b takes the oldest
  const [taken] = await store.push.claimDeliveries('fcm', 1, 130, 'node-b', 200);
  assert.equal(taken?.id, a!.id, 'the oldest expired claim');
  const held = await store.push.finishAttempts('node-a', 131, [
    { id: c!.id, outcome: { state: 'delivered', detail: 'HTTP 200' } },
    { id: a!.id, outcome: { state: 'delivered', detail: 'late' } },
    { id: b!.id, outcome: { state: 'pending', detail: 'HTTP 503', nextAt: 500 } },
  ]);
  assert.deepEqual(held, [true, false, true]);
  assert.deepEqual(await store.push.finishAttempts('node-a', 132, []), []);
  const states = new Map((await store.push.listNotifications(owner.id, 'DEMO1', 10)).map((n) => [n.text, n.deliveries[0]!]));
  assert.deepEqual([states.get('one')!.state, states.get('one')!.attempts], ['pending', []], 'node-b holds it: nothing recorded');
  assert.deepEqual([states.get('two')!.state, states.get('two')!.attempts.map((x) => x.detail)], ['pending', ['HTTP 503']]);
  assert.deepEqual([states.get('three')!.state, states.get('three')!.attempts.map((x) => x.detail)], ['delivered', ['HTTP 200']]);
});

test('a subscription that went away, went inactive or changed its channel before the send ends its delivery as removed; a resubscribed token gets it at its new key; a removed target too', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  for (const appId of ['gone', 'inactive', 'changed', 'renewed', 'sent']) await subscribe(store, owner.id, { appId, pushType: 'fcm', key: `${appId}-1` });
  const target = await store.push.addTarget(owner.id, 'webhook', 'https://hooks.example/a', '', 1);
  await notify(store, owner.id, 100);
  // one is sent, its receipt to be checked (as a channel with receipts would), before its subscription goes
  const [sent] = (await store.push.claimDeliveries('fcm', 10, 100, 'n', 130)).filter((i) => i.appId === 'sent');
  assert.ok(await store.push.finishAttempt(sent!.id, 'n', 101, { state: 'receipt', detail: 'accepted', receipt: 'r-1', nextAt: 200 }));
  await store.push.releaseClaims('n');

  assert.equal(await store.push.removeSubscription(owner.id, 'DEMO1', 'gone'), true);
  assert.equal(await store.push.removeSubscription(owner.id, 'DEMO1', 'sent'), true);
  await subscribe(store, owner.id, { appId: 'inactive', pushType: 'fcm', key: 'inactive-1', active: false });
  await subscribe(store, owner.id, { appId: 'changed', pushType: 'apns', key: 'changed-1' });
  await subscribe(store, owner.id, { appId: 'renewed', pushType: 'gcm', key: 'renewed-2' });
  assert.equal(await store.push.removeTarget(owner.id, target.id), true);

  const items = await store.push.claimDeliveries('fcm', 2, 200, 'n', 230);
  assert.deepEqual(items.map((i) => [i.appId, i.state, i.address]), [['renewed', 'pending', 'renewed-2'], ['sent', 'receipt', 'sent-1']]);
  assert.deepEqual(await store.push.claimDeliveries('webhook', 2, 200, 'n', 230), []);
  assert.deepEqual(await store.push.claimDeliveries('apns', 2, 200, 'n', 230), [], 'a delivery keeps its channel');
  const [n] = await store.push.listNotifications(owner.id, 'DEMO1', 1);
  assert.deepEqual(
    n!.deliveries.map((d) => [d.appId || d.targetId, d.state, d.attempts.at(-1)?.detail ?? '']),
    [
      ['changed', 'removed', 'subscription removed'],
      ['gone', 'removed', 'subscription removed'],
      ['inactive', 'removed', 'subscription removed'],
      ['renewed', 'pending', ''],
      ['sent', 'receipt', 'accepted'],
      [target.id, 'removed', 'target removed'],
    ],
  );
  assert.deepEqual(n!.deliveries[0]!.attempts, [{ time: 200, state: 'removed', detail: 'subscription removed' }]);
  assert.deepEqual([...(await store.push.countOpen())], [['fcm', 2]]);
});

test('the removed outcome deletes the subscription only while it still has the address the delivery went to; so does a direct result', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'app', pushType: 'apns', key: 'tok-1' });
  await notify(store, owner.id, 100);
  await notify(store, owner.id, 101);
  const [first, second] = await store.push.claimDeliveries('apns', 2, 200, 'n', 230);
  assert.deepEqual([first?.address, second?.address], ['tok-1', 'tok-1']);

  // the app subscribed again with a new token meanwhile: the old token's rejection leaves it
  await subscribe(store, owner.id, { appId: 'app', pushType: 'apns', key: 'tok-2' });
  assert.ok(await store.push.finishAttempt(first!.id, 'n', 201, { state: 'removed', detail: 'BadDeviceToken' }));
  assert.deepEqual((await store.push.listSubscriptions(owner.id)).map((s) => [s.pushKeyValue, s.lastResult]), [['tok-2', 'BadDeviceToken']]);
  await store.push.releaseClaims('n');
  // the second is claimed again: to the new token, whose rejection removes the subscription
  const [again] = await store.push.claimDeliveries('apns', 2, 300, 'n', 330);
  assert.deepEqual([again?.id, again?.address, again?.attempts], [second!.id, 'tok-2', 0]);
  assert.ok(await store.push.finishAttempt(again!.id, 'n', 301, { state: 'removed', detail: 'Unregistered' }));
  assert.deepEqual(await store.push.listSubscriptions(owner.id), []);
  const [n] = await store.push.listNotifications(owner.id, undefined, 1);
  assert.deepEqual(n!.deliveries.map((d) => [d.state, d.attempts]), [['removed', [{ time: 301, state: 'removed', detail: 'Unregistered' }]]]);

  // direct sends (`vts push test`)
  await subscribe(store, owner.id, { appId: 'app', pushType: 'apns', key: 'tok-3' });
  await store.push.recordResult({ ownerId: owner.id, vehicleId: 'DEMO1', appId: 'app', address: 'tok-2' }, 400, 'BadDeviceToken', true);
  assert.deepEqual((await store.push.listSubscriptions(owner.id)).map((s) => [s.pushKeyValue, s.lastResult, s.lastTime]), [['tok-3', 'BadDeviceToken', 400]]);
  await store.push.recordResult({ ownerId: owner.id, vehicleId: 'demo1', appId: 'app', address: 'tok-3' }, 401, 'BadDeviceToken', true);
  assert.deepEqual(await store.push.listSubscriptions(owner.id), []);
  const target = await store.push.addTarget(owner.id, 'webhook', 'https://hooks.example/a', '', 1);
  await store.push.recordResult({ targetId: target.id }, 402, 'HTTP 204', true);
  assert.deepEqual((await store.push.listTargets(owner.id)).map((x) => [x.lastResult, x.lastTime]), [['HTTP 204', 402]]);
});

test('releaseClaims lets go of the claims of one claimer only', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'app', pushType: 'fcm', key: 'tok' });
  for (let i = 0; i < 5; i++) await notify(store, owner.id, 100 + i);
  assert.equal((await store.push.claimDeliveries('fcm', 3, 200, 'dead', 10_000)).length, 3);
  assert.equal((await store.push.claimDeliveries('fcm', 3, 200, 'alive', 10_000)).length, 2);
  assert.equal(await store.push.releaseClaims('dead'), 3);
  assert.equal(await store.push.releaseClaims('dead'), 0);
  assert.deepEqual((await store.push.claimDeliveries('fcm', 10, 201, 'dead', 10_000)).map((i) => i.time), [100, 101, 102]);
});

/** Claims (max `max` a time) and finishes as delivered until nothing is due; the ids it got. */
async function drain(store: Store, claimer: string, max: number): Promise<number[]> {
  const got: number[] = [];
  for (;;) {
    const items = await store.push.claimDeliveries('fcm', max, 1000, claimer, 1060);
    if (items.length === 0) return got;
    for (const i of items) {
      got.push(i.id);
      assert.ok(await store.push.finishAttempt(i.id, claimer, 1000, { state: 'delivered', detail: 'ok' }));
    }
  }
}

/** The ids of the open fcm deliveries of 60 notifications (two subscriptions each). */
async function outbox(store: Store): Promise<number[]> {
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'a', pushType: 'fcm', key: 'tok-a' });
  await subscribe(store, owner.id, { appId: 'b', pushType: 'gcm', key: 'tok-b' });
  for (let i = 0; i < 60; i++) await notify(store, owner.id, 100 + (i % 7));
  return (await store.push.listNotifications(owner.id, undefined, 100)).flatMap((n) => n.deliveries.map((d) => d.id)).sort((a, b) => a - b);
}

test('two stores on one database claim at once: each delivery is claimed and finished exactly once', async (t) => {
  const place = freshPlace(t);
  const one = await place.open();
  const two = await place.open();
  const all = await outbox(one);
  // every claimer runs to its end before anything is judged (a failed one leaves nothing running)
  const results = await Promise.allSettled([drain(one, 'one', 3), drain(two, 'two', 4), drain(two, 'three', 2)]);
  const got = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : assert.fail(String(r.reason)))).sort((x, y) => x - y);
  assert.deepEqual(got, all);
  assert.ok(results.every((r) => r.status === 'fulfilled' && r.value.length > 0), 'each claimer got some');
  assert.deepEqual([...(await one.push.countOpen())], []);
});

test('processes claiming from one database at once: each delivery exactly once, and no error', async (t) => {
  const place = freshPlace(t);
  const store = await place.open();
  const all = await outbox(store);
  const open = new URL('../../src/store/open.ts', import.meta.url).pathname;
  const script = `const { openStore } = await import(${JSON.stringify(open)});
    const store = await openStore(process.env.DIR, { database: process.env.DB || undefined });
    while (Date.now() < Number(process.env.START)) await new Promise((r) => setTimeout(r, 5));
    const got = [];
    for (;;) {
      const items = await store.push.claimDeliveries('fcm', 2, 1000, process.env.N, 1060);
      if (items.length === 0) break;
      for (const i of items) {
        got.push(i.id);
        if (!(await store.push.finishAttempt(i.id, process.env.N, 1000, { state: 'delivered', detail: 'ok' }))) throw new Error('lost ' + i.id);
      }
    }
    await store.close();
    console.log(JSON.stringify(got));`;
  const start = Date.now() + 3000;
  const run = (n: number): Promise<number[]> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, DIR: place.dir, DB: place.database ?? '', N: `p${n}`, START: String(start) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`process ${n} exited ${code}: ${err}`))));
    });
  const settled = await Promise.allSettled([1, 2, 3].map(run));
  const results = settled.map((r) => (r.status === 'fulfilled' ? r.value : assert.fail(String(r.reason))));
  assert.deepEqual(results.flat().sort((a, b) => a - b), all);
  console.log(`# claimed per process: ${results.map((r) => r.length).join(', ')}`);
  assert.deepEqual([...(await store.push.countOpen())], []);
});
