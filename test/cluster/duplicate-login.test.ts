/**
 * A car that logs in again on another node replaces its old connection wherever that is: the old
 * one is closed, the vehicle stays connected everywhere, the apps of every node go on with the new
 * connection (live messages, command round trips), and the counts stay right.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { eventually, m, roundTrip } from '../mp/helpers.js';
import { answerCommands, countsEverywhere, nextOf, readUntil, skipCluster, startCluster, type Node } from './harness.js';

/** Resolves when the client's connection is closed (fails the test if it stays open). */
async function closedWithin(client: MpClient, what: string): Promise<void> {
  let guard: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.closed,
      new Promise<never>((_r, reject) => (guard = setTimeout(() => reject(new Error(`${what} was not closed`)), 15_000))),
    ]);
  } finally {
    clearTimeout(guard);
  }
}

/** An MP command round trip from an app through the car that `seen` records. */
async function mpCommand(app: MpClient, seen: { code: string; data: string }[], text: string): Promise<void> {
  app.send('C', `7,${text}`);
  assert.deepEqual(await nextOf(app, 'c'), m('c', `7,0,ran ${text}`));
  assert.ok(seen.some((msg) => msg.code === 'C' && msg.data === `7,${text}`), `the new car connection got ${text}`);
}

test('a car logging in again on node B replaces its connection on node A; apps on both nodes go on with it', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const first = await c.mp(a, 'C');
  assert.deepEqual(await first.next(), m('Z', '0'));
  const appA = await c.mp(a, 'A');
  await readUntil(appA, 'T');
  const appB = await c.mp(b, 'A');
  await readUntil(appB, 'T');
  assert.deepEqual(await first.next(), m('Z', '1'));
  assert.deepEqual(await first.next(), m('Z', '2'));
  await countsEverywhere(c, { net: 1, apps: 2, batches: 0 });

  const second = await c.mp(b, 'C');
  assert.deepEqual(await second.next(), m('Z', '2'), 'the new connection hears of both apps');
  await closedWithin(first, "node A's old connection of the car");
  const seen = answerCommands(second);
  await countsEverywhere(c, { net: 1, apps: 2, batches: 0 });
  for (const app of [appA, appB]) {
    const z = (await roundTrip(app)).filter((msg) => msg.code === 'Z');
    assert.ok(z.length === 0 || z.at(-1)!.data === '1', `an app was left with the car offline: ${JSON.stringify(z)}`);
  }

  // live messages of the new connection reach both nodes' apps; commands from both reach it
  second.send('S', '77,K,220,13');
  for (const app of [appA, appB]) assert.deepEqual(await nextOf(app, 'S'), m('S', '77,K,220,13'));
  await mpCommand(appA, seen, 'stat from A');
  await mpCommand(appB, seen, 'stat from B');
  const http = await fetch(a.url('/api/command/CLCAR'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command: 'stat http', type: 'shell' }),
  });
  assert.equal(http.status, 200);
  assert.deepEqual(await http.json(), { output: 'ran stat http', result: 0 });

  // the new connection leaving takes the vehicle offline everywhere: nothing of the old one is left
  await second.close();
  await countsEverywhere(c, { net: 0, apps: 2, batches: 0 });
  for (const app of [appA, appB]) assert.deepEqual(await nextOf(app, 'Z'), m('Z', '0'));
});

test('and back: a third login on node A closes the connection on node B', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const first = await c.mp(a, 'C');
  assert.deepEqual(await first.next(), m('Z', '0'));
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
  const second = await c.mp(b, 'C');
  await closedWithin(first, 'the connection on A');
  await second.next();
  const third = await c.mp(a, 'C');
  await closedWithin(second, 'the connection on B');
  assert.deepEqual(await third.next(), m('Z', '0'));
  assert.equal(third.isClosed, false, 'the newest connection stays');
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });

  // the newest one is the car: an app on B reaches it
  const seen = answerCommands(third);
  const app = await c.mp(b, 'A');
  await readUntil(app, 'T');
  await mpCommand(app, seen, 'stat');
  await eventually(() => (seen.some((msg) => msg.code === 'Z' && msg.data === '1') ? true : undefined), 'the car on A told of the app on B');
  await countsEverywhere(c, { net: 1, apps: 1, batches: 0 });
});

test('two logins at the same moment on two nodes: exactly one connection stays, and it is the car', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  for (let round = 1; round <= 3; round++) {
    const [onA, onB] = await Promise.all([c.mp(a, 'C'), c.mp(b, 'C')]);
    await eventually(() => (onA.isClosed || onB.isClosed ? true : undefined), `round ${round}: one of the two connections closed`, 15_000);
    const survivor = onA.isClosed ? onB : onA;
    const seen = answerCommands(survivor);
    await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
    for (const node of [a, b]) {
      const res = await fetch(node.url('/api/command/CLCAR'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ command: `round ${round} from ${node.id}`, type: 'shell' }),
      });
      assert.deepEqual(await res.json(), { output: `ran round ${round} from ${node.id}`, result: 0 }, `round ${round}: a command from ${node.id}`);
    }
    assert.equal(survivor.isClosed, false, `round ${round}: the connection that stayed is still open`);
    assert.equal(seen.filter((msg) => msg.code === 'C').length, 2);
    await survivor.close();
    await countsEverywhere(c, { net: 0, apps: 0, batches: 0 });
  }
});
