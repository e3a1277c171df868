/**
 * A car on node A and its clients on node B, as on one node: the app's login replay, live
 * messages, `Z` counts both ways, the counts of `/api/vehicles` on every node, an MP command round
 * trip, an app's message for the car, group messages, and the dashboard's live stream on B.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, m, roundTrip } from '../mp/helpers.js';
import { countsEverywhere, nextOf, readUntil, skipCluster, startCluster } from './harness.js';

test('a car on one node and an app on another: replay, live messages, Z counts, commands, counts everywhere', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [(typeof c.nodes)[0], (typeof c.nodes)[0]];

  const car = await c.mp(a, 'C');
  assert.deepEqual(await car.next(), m('Z', '0'));
  car.send('S', '81,K,220,13');
  car.send('D', '1,2,3');
  assert.deepEqual(await roundTrip(car), []);
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });

  // the app on B: the replay has what the car on A stored, and the car hears of the app
  const app = await c.mp(b, 'A');
  const replay = await readUntil(app, 'T');
  assert.deepEqual(replay.slice(0, 3), [m('Z', '1'), m('S', '81,K,220,13'), m('D', '1,2,3')]);
  assert.deepEqual(await car.next(), m('Z', '1'));
  await countsEverywhere(c, { net: 1, apps: 1, batches: 0 });

  // live messages go from A to B, in order
  car.send('L', '51.5,-0.1');
  car.send('P', 'IHello from the car');
  assert.deepEqual(await app.next(), m('L', '51.5,-0.1'));
  assert.deepEqual(await app.next(), m('T', '0'));
  assert.deepEqual(await app.next(), m('P', 'IHello from the car'));

  // an MP command from B reaches the car on A, and its answer comes back to the app
  app.send('C', '7,stat');
  assert.deepEqual(await nextOf(car, 'C'), m('C', '7,stat'));
  car.send('c', '7,0,SOC 81%');
  assert.deepEqual(await app.next(), m('c', '7,0,SOC 81%'));
  // the audit is written as the command ends, after its answer went out
  const audited = await eventually(async () => (await c.store.listCommandAudit('CLCAR', 5))[0], 'the command audit');
  assert.equal(audited.caller.startsWith('mp:b/'), true, 'audited by the node of the car, with the caller of node B');

  // anything else an app sends goes to the car wherever it is
  app.send('X', 'to the car');
  assert.deepEqual(await nextOf(car, 'X'), m('X', 'to the car'));

  // a batch client on A counts too; the app leaving B is heard by the car on A
  const batch = await c.mp(a, 'B');
  await readUntil(batch, 'T');
  await countsEverywhere(c, { net: 1, apps: 1, batches: 1 });
  await app.close();
  assert.deepEqual(await nextOf(car, 'Z'), m('Z', '0'));
  await countsEverywhere(c, { net: 1, apps: 0, batches: 1 });

  // the car leaving A is heard by a client on B
  const app2 = await c.mp(b, 'A');
  await readUntil(app2, 'T');
  await car.close();
  assert.deepEqual(await nextOf(app2, 'Z'), m('Z', '0'));
  await countsEverywhere(c, { net: 0, apps: 1, batches: 1 });
});

test('group messages reach the subscribers of every node; a subscriber gets the current data of cars elsewhere', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [(typeof c.nodes)[0], (typeof c.nodes)[0]];
  const car = await c.mp(a, 'C');
  await car.next();
  car.send('g', 'fleet,51.5,-0.1');
  await roundTrip(car);
  const app = await c.mp(b, 'A');
  await readUntil(app, 'T');
  app.send('G', 'FLEET');
  assert.deepEqual(await nextOf(app, 'g'), m('g', 'CLCAR,FLEET,51.5,-0.1'));
  car.send('g', 'fleet,52.0,0.2');
  assert.deepEqual(await nextOf(app, 'g'), m('g', 'CLCAR,FLEET,52.0,0.2'));
});

test("the dashboard's live stream on one node hears the car on another", { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [(typeof c.nodes)[0], (typeof c.nodes)[0]];
  const car = await c.mp(a, 'C');
  await car.next();
  car.send('S', '55,K,220,13');
  await roundTrip(car);

  const login = await fetch(b.url('/api/session', false), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=demo&password=demopass',
  });
  assert.equal(login.status, 200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const controller = new AbortController();
  t.after(() => controller.abort());
  const res = await fetch(b.url('/api/live/CLCAR', false), { headers: { cookie }, signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const until = async (needle: string): Promise<void> => {
    while (!text.includes(needle)) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `the stream ended before ${needle}: ${text}`);
      text += value;
    }
  };
  await until('"data":"55,K,220,13"'); // the stored record, read after the car's node committed
  assert.deepEqual(await nextOf(car, 'Z'), m('Z', '1'), 'the stream counts as an app of the car on A');
  car.send('D', '9,8,7');
  await until('"data":"9,8,7"');
  car.send('P', 'AAlarm!');
  await until('"text":"Alarm!"');
});
