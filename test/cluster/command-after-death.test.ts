/**
 * Commands after a node died (kill -9), before the others have noticed by its lease: the car that
 * logged in again on another node gets them, not the dead node (the newest login of a car wins
 * when two nodes say they hold it, and a request that no node hears is routed again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerCommands, countsEverywhere, skipCluster, startCluster, type Node } from './harness.js';

/** `POST /api/command/CLCAR` on a node as the demo user. */
const command = (node: Node, text: string): Promise<Response> =>
  fetch(node.url('/api/command/CLCAR'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command: text, type: 'shell' }),
  });

test('kill -9 of the node holding the car; the car logs in on B; a command on C reaches it on B', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b', 'c']);
  const [a, b, cc] = c.nodes as [Node, Node, Node];
  answerCommands(await c.mp(a, 'C'));
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
  const before = await command(cc, 'stat');
  assert.deepEqual(await before.json(), { output: 'ran stat', result: 0 });

  await a.kill();
  const seen = answerCommands(await c.mp(b, 'C'));
  // at once: A's lease has not run out, C still has A's part of the vehicle
  const res = await command(cc, 'stat again');
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { output: 'ran stat again', result: 0 });
  assert.ok(seen.some((msg) => msg.code === 'C' && msg.data === '7,stat again'), 'the car on B ran it');
  assert.ok(!cc.logged('cluster: a node stopped answering: its cars and apps are gone from the counts'), 'before A was found dead');
});
