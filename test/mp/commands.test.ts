/**
 * Commands `C` and responses `c` (docs/protocol/mp.md §11.1–§11.3, docs/compatibility.md #1–#3): a
 * response goes only to the client whose command is at the head of the car connection's FIFO;
 * functions 1 and 3 answer with several lines; an error line completes a command; a command for
 * an offline car is answered `c<fn>,1,Vehicle not connected`; an unsolicited `c` goes to every
 * client; the answer for a client that left is dropped. Clients' commands go through the command
 * service: one at a time per vehicle, so a command reaches the car once the one before it is
 * answered (docs/compatibility.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, harness, m, roundTrip, type Harness } from './helpers.js';

/** A car with two apps and a batch client, all past their login messages. */
async function scene(h: Harness) {
  const { c: app1 } = await h.client('A');
  const { c: app2 } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  for (const c of [app1, app2, batch]) assert.deepEqual(await roundTrip(c), [m('Z', '1')]);
  return { app1, app2, batch, car };
}

test("a command from an app reaches the car and the car's answer goes only to that app", async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);

  app1.send('C', '5,0');
  assert.deepEqual(await car.next(), m('C', '5,0'));
  car.send('c', '5,0,ok');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), [m('c', '5,0,ok')]);
  assert.deepEqual(await roundTrip(app2), []);
  assert.deepEqual(await roundTrip(batch), []);
});

test('commands of two apps reach the car one at a time; each answer goes to its own app', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);

  app1.send('C', '6');
  assert.deepEqual(await car.next(), m('C', '6'));
  app2.send('C', '6');
  app1.send('C', '10,1');
  assert.deepEqual(await roundTrip(car), [], 'the others wait for the first answer');

  car.send('c', '6,0,first');
  assert.deepEqual(await car.next(), m('C', '6'));
  car.send('c', '6,0,second');
  assert.deepEqual(await car.next(), m('C', '10,1'));
  car.send('c', '10,0,third');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), [m('c', '6,0,first'), m('c', '10,0,third')]);
  assert.deepEqual(await roundTrip(app2), [m('c', '6,0,second')]);
  assert.deepEqual(await roundTrip(batch), []);
});

test('multi-line answers of functions 1 and 3 all go to the requester; the next command goes out after the last line', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);

  app1.send('C', '1');
  assert.deepEqual(await car.next(), m('C', '1'));
  app2.send('C', '3');
  batch.send('C', '5,1');

  const features = ['1,0,0,3,feature a', '1,0,1,3,feature b', '1,0,2,3,feature c'];
  const params = ['3,0,0,2,param a', '3,0,1,2,param b'];
  for (const line of features.slice(0, 2)) car.send('c', line);
  assert.deepEqual(await roundTrip(car), [], 'function 1 is not complete yet');
  car.send('c', features[2]!);
  assert.deepEqual(await car.next(), m('C', '3'));
  for (const line of params) car.send('c', line);
  assert.deepEqual(await car.next(), m('C', '5,1'));
  car.send('c', '5,0,done');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), features.map((d) => m('c', d)));
  assert.deepEqual(await roundTrip(app2), params.map((d) => m('c', d)));
  assert.deepEqual(await roundTrip(batch), [m('c', '5,0,done')]);
});

test('an error line of function 1 or 3 completes the command (vts fix of REF)', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);

  app1.send('C', '3');
  assert.deepEqual(await car.next(), m('C', '3'));
  app2.send('C', '1');
  batch.send('C', '4');

  car.send('c', '3,1,some error');
  assert.deepEqual(await car.next(), m('C', '1'));
  car.send('c', '1,1,another error');
  assert.deepEqual(await car.next(), m('C', '4'));
  car.send('c', '4,0,ok');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), [m('c', '3,1,some error')]);
  assert.deepEqual(await roundTrip(app2), [m('c', '1,1,another error')]);
  assert.deepEqual(await roundTrip(batch), [m('c', '4,0,ok')]);
});

test('a command to a car that is not connected is answered c<fn>,1,Vehicle not connected at once', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');

  app.send('C', '5,0');
  assert.deepEqual(await roundTrip(app), [m('c', '5,1,Vehicle not connected')]);
  batch.send('C', '1');
  assert.deepEqual(await roundTrip(batch), [m('c', '1,1,Vehicle not connected')]);
  assert.deepEqual(await roundTrip(app), [], 'only the sender is told');

  // after the car left, too
  const { c: car } = await h.car();
  await car.close();
  assert.deepEqual(await app.next(), m('Z', '1'));
  assert.deepEqual(await app.next(), m('Z', '0'));
  app.send('C', '7,ls');
  assert.deepEqual(await roundTrip(app), [m('c', '7,1,Vehicle not connected')]);
});

test('an unsolicited c (empty queue) goes to all clients and the car connection goes on working', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);

  car.send('c', '41,0,USSD answer');
  car.send('A');
  assert.deepEqual(await car.next(), m('a', ''));
  for (const c of [app1, app2, batch]) assert.deepEqual(await roundTrip(c), [m('c', '41,0,USSD answer')]);

  // data and commands still work
  car.send('D', '1,2,3');
  await roundTrip(car);
  for (const c of [app1, app2, batch]) assert.deepEqual(await roundTrip(c), [m('D', '1,2,3'), m('T', '0')]);
  app2.send('C', '5,0');
  assert.deepEqual(await car.next(), m('C', '5,0'));
  car.send('c', '5,0,ok');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app2), [m('c', '5,0,ok')]);
  assert.deepEqual(await roundTrip(app1), []);
});

test('extra response lines after the queue is empty go to all clients', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);
  app1.send('C', '41,*100#');
  assert.deepEqual(await car.next(), m('C', '41,*100#'));
  car.send('c', '41,0');
  car.send('c', '41,0,the USSD reply');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), [m('c', '41,0'), m('c', '41,0,the USSD reply')]);
  assert.deepEqual(await roundTrip(app2), [m('c', '41,0,the USSD reply')]);
  assert.deepEqual(await roundTrip(batch), [m('c', '41,0,the USSD reply')]);
});

test('the answer for an app that disconnected is dropped, not delivered to the next app', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);

  app1.send('C', '10');
  assert.deepEqual(await car.next(), m('C', '10'));
  app2.send('C', '11');
  await app1.close();
  assert.deepEqual(await car.next(), m('Z', '1'), 'the server has seen app1 leave');

  car.send('c', '10,0,for app1');
  assert.deepEqual(await car.next(), m('C', '11'), "app1's command was answered: app2's goes out");
  car.send('c', '11,0,for app2');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app2), [m('c', '11,0,for app2')]);
  assert.deepEqual(await roundTrip(batch), []);
});

test('the answer for a batch client that disconnected is dropped too', async (ctx) => {
  const h = await harness(ctx);
  const { app1, batch, car } = await scene(h);

  batch.send('C', '1');
  assert.deepEqual(await car.next(), m('C', '1'));
  app1.send('C', '5');
  await batch.close();
  await eventually(() => (h.t.server.hub.counts('TESTCAR').batches === 0 ? true : undefined), 'the batch client to leave');

  car.send('c', '1,0,0,2,for the batch client');
  car.send('c', '1,0,1,2,for the batch client');
  assert.deepEqual(await car.next(), m('C', '5'));
  car.send('c', '5,0,for app1');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), [m('c', '5,0,for app1')]);
});

test('batch client commands are queued and answered like app commands', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);

  batch.send('C', '5,0');
  assert.deepEqual(await car.next(), m('C', '5,0'));
  app1.send('C', '1');
  batch.send('C', '3');

  car.send('c', '5,0,ok');
  assert.deepEqual(await car.next(), m('C', '1'));
  for (const line of ['1,0,0,2,a', '1,0,1,2,b']) car.send('c', line);
  assert.deepEqual(await car.next(), m('C', '3'));
  car.send('c', '3,0,0,1,p');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(batch), [m('c', '5,0,ok'), m('c', '3,0,0,1,p')]);
  assert.deepEqual(await roundTrip(app1), [m('c', '1,0,0,2,a'), m('c', '1,0,1,2,b')]);
  assert.deepEqual(await roundTrip(app2), []);
});

test('a command whose car leaves before it answers ends with Vehicle not connected; the new car starts with an empty queue', async (ctx) => {
  const h = await harness(ctx);
  const { app1, app2, batch, car } = await scene(h);
  app1.send('C', '5');
  assert.deepEqual(await car.next(), m('C', '5'));

  const { c: car2, initial } = await h.car();
  assert.deepEqual(initial, [m('Z', '2')]);
  await car.closed;
  assert.deepEqual(await roundTrip(app1), [m('Z', '0'), m('Z', '1'), m('c', '5,1,Vehicle not connected')]);
  for (const c of [app2, batch]) assert.deepEqual(await roundTrip(c), [m('Z', '0'), m('Z', '1')]);

  // an answer to the old connection's command, sent on the new one, is unsolicited: to every client
  car2.send('c', '5,0,late');
  await roundTrip(car2);
  for (const c of [app1, app2, batch]) assert.deepEqual(await roundTrip(c), [m('c', '5,0,late')]);
});

test('a command from a car is not forwarded anywhere', async (ctx) => {
  const h = await harness(ctx);
  const { app1, batch, car } = await scene(h);
  car.send('C', '5');
  assert.deepEqual(await roundTrip(car), []);
  assert.deepEqual(await roundTrip(app1), []);
  assert.deepEqual(await roundTrip(batch), []);
});

test('an app command goes through the command service: audited with caller mp:<connection>, timed out with an answer', async (ctx) => {
  const h = await harness(ctx, { commands: { defaultTimeoutMs: 300 } });
  const { app1, car } = await scene(h);

  app1.send('C', '20,1234');
  assert.deepEqual(await car.next(), m('C', '20,1234'));
  car.send('c', '20,0');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), [m('c', '20,0')]);

  // the car never answers: the app is told, and the late answer is dropped
  app1.send('C', '7,stat');
  assert.deepEqual(await car.next(), m('C', '7,stat'));
  assert.deepEqual(await app1.next(), m('c', '7,1,Command timed out'));
  car.send('c', '7,0,too late');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), []);

  const audit = await h.t.server.store.listCommandAudit('TESTCAR', 10);
  assert.deepEqual(
    audit.map((e) => [e.caller.replace(/\d+$/, 'N'), e.via, e.kind, e.command, e.result]),
    [
      ['mp:N', 'mp', 'mp', '7,stat', 'timeout'],
      ['mp:N', 'mp', 'mp', '20,***', '0'],
    ],
    'newest first; the PIN is masked',
  );
});
