/**
 * The copy of what other nodes hold (pure): parts applied in the order they were published leave
 * the latest state, sums over nodes, the interested nodes, a node's departure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PresenceReplica } from '../../src/cluster/presence-replica.js';
import type { NodePresence } from '../../src/hub/cluster/cluster.js';
import { fuzzParams } from '../support/fuzz.js';

const p = (car: boolean, v3: boolean, apps: number, batches: number): NodePresence => ({ car, v3, apps, batches });

test('sums the parts of every node; the car node; the nodes with clients', () => {
  const r = new PresenceReplica();
  assert.equal(r.set('a', 'V', p(true, false, 1, 0)), true);
  assert.equal(r.set('b', 'V', p(false, false, 2, 1)), true);
  assert.equal(r.set('b', 'V', p(false, false, 2, 1)), false, 'the same part again changes nothing');
  assert.deepEqual(r.remote('V'), { carNode: 'a', v3Node: null, apps: 3, batches: 1, interested: ['a', 'b'] });
  r.set('c', 'V', p(false, true, 0, 0));
  assert.equal(r.remote('V').v3Node, 'c');
  assert.deepEqual(r.remote('V').interested, ['a', 'b'], 'a node without clients needs no messages');
  assert.deepEqual(r.remote('W'), { carNode: null, v3Node: null, apps: 0, batches: 0, interested: [] });
});

test('a node that leaves takes its parts with it; an empty part is no part', () => {
  const r = new PresenceReplica();
  r.set('a', 'V', p(true, false, 0, 0));
  r.set('a', 'W', p(false, false, 1, 0));
  r.set('b', 'W', p(false, false, 1, 0));
  assert.deepEqual(r.dropNode('a').sort(), ['V', 'W']);
  assert.equal(r.remote('V').carNode, null);
  assert.equal(r.remote('W').apps, 1);
  assert.equal(r.set('b', 'W', p(false, false, 0, 0)), true);
  assert.deepEqual(r.nodes(), []);
  assert.equal(r.set('b', 'W', p(false, false, 0, 0)), false);
});

test('property: applying the parts in publish order gives the last part of each node, whatever was loaded before', () => {
  const part = fc.record({ car: fc.boolean(), v3: fc.boolean(), apps: fc.nat(3), batches: fc.nat(2) });
  const update = fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('V', 'W'), part);
  fc.assert(
    fc.property(fc.array(update, { maxLength: 40 }), fc.nat(40), (updates, cut) => {
      // a node joins at some point: it loads the state so far (a snapshot), then applies every
      // update from a point at or before the snapshot (updates may be seen twice)
      const k = Math.min(cut, updates.length);
      const snapshot = new PresenceReplica();
      for (const [n, v, x] of updates.slice(0, k)) snapshot.set(n, v, x);
      for (const [n, v, x] of updates.slice(Math.max(0, k - 3))) snapshot.set(n, v, x);
      const truth = new Map<string, NodePresence>();
      for (const [n, v, x] of updates) truth.set(`${n}/${v}`, x);
      for (const v of ['V', 'W']) {
        const parts = ['a', 'b', 'c'].map((n) => truth.get(`${n}/${v}`)).filter((x): x is NodePresence => x !== undefined);
        const got = snapshot.remote(v);
        assert.equal(got.apps, parts.reduce((s, x) => s + x.apps, 0));
        assert.equal(got.batches, parts.reduce((s, x) => s + x.batches, 0));
        assert.equal(got.carNode !== null, parts.some((x) => x.car));
      }
    }),
    fuzzParams(500),
  );
});

test('the car on two nodes (one died or is closing it): the newest claim wins, a claim being made first', () => {
  const r = new PresenceReplica();
  r.set('a', 'V', { ...p(true, false, 0, 0), claim: 7 });
  r.set('b', 'V', { ...p(true, false, 0, 0), claim: 3 });
  assert.equal(r.remote('V').carNode, 'a');
  r.set('b', 'V', p(true, false, 0, 0)); // b's car logged in again, its claim not known yet
  assert.equal(r.remote('V').carNode, 'b');
  r.set('b', 'V', { ...p(true, false, 0, 0), claim: 9 });
  assert.equal(r.remote('V').carNode, 'b');
  assert.equal(r.set('b', 'V', { ...p(true, false, 0, 0), claim: 9 }), false, 'the same claim changes nothing');
});

test("a node's part read again replaces the copy: what is gone, what changed, what is new", () => {
  const r = new PresenceReplica();
  r.set('a', 'V', p(true, false, 0, 0));
  r.set('a', 'W', p(false, false, 2, 0));
  r.set('b', 'W', p(false, false, 1, 0));
  const changed = r.replaceNode('a', new Map([['W', p(false, false, 2, 0)], ['X', p(false, false, 0, 1)]]));
  assert.deepEqual(changed.sort(), ['V', 'X']);
  assert.deepEqual(r.remote('V'), { carNode: null, v3Node: null, apps: 0, batches: 0, interested: [] });
  assert.equal(r.remote('W').apps, 3);
  assert.equal(r.remote('X').batches, 1);
  assert.deepEqual(r.replaceNode('a', new Map()).sort(), ['W', 'X']);
  assert.deepEqual(r.nodes(), ['b']);
});
