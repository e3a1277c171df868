/** RenderedLists (src/http/web-api/rendered-lists.ts): the remembered JSON bodies of the lists of drives and charges. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RenderedLists } from '../../../src/http/web-api/rendered-lists.js';

interface Item {
  id: number;
  end: number | null;
}

const key = { vehicleId: 'DEMO1', from: 0, to: 100 };

function counting(): { render: (s: Item) => string; calls: number[] } {
  const calls: number[] = [];
  return { calls, render: (s) => (calls.push(s.id), JSON.stringify(s)) };
}

test('the same finished items in the same context: the same bytes, nothing rendered again', () => {
  const lists = new RenderedLists<Item>((s) => s.end !== null);
  const items = [{ id: 1, end: 5 }, { id: 2, end: 9 }];
  const r = counting();
  const first = lists.body(key, items, 'c', r.render);
  assert.equal(first.toString(), '[{"id":1,"end":5},{"id":2,"end":9}]\n');
  assert.equal(lists.body(key, [...items], 'c', r.render), first);
  assert.deepEqual(r.calls, [1, 2]);
  // another context: rendered again; another period: the items' JSON is reused, the body made anew
  assert.notEqual(lists.body(key, items, 'd', r.render), first);
  assert.deepEqual(r.calls, [1, 2, 1, 2]);
  const other = lists.body({ ...key, to: 200 }, items, 'd', r.render);
  assert.equal(other.toString(), first.toString());
  assert.deepEqual(r.calls, [1, 2, 1, 2]);
  // a changed item is another object: only it is rendered
  const changed = [items[0]!, { id: 2, end: 10 }];
  assert.equal(lists.body(key, changed, 'd', r.render).toString(), '[{"id":1,"end":5},{"id":2,"end":10}]\n');
  assert.deepEqual(r.calls, [1, 2, 1, 2, 2]);
  assert.equal(lists.body(key, [], 'd', r.render).toString(), '[]\n');
});

test('an open item is rendered at every request, and its list is not remembered', () => {
  const lists = new RenderedLists<Item>((s) => s.end !== null);
  const items = [{ id: 1, end: 5 }, { id: 2, end: null }];
  const r = counting();
  const a = lists.body(key, items, 'c', r.render);
  const b = lists.body(key, items, 'c', r.render);
  assert.notEqual(a, b);
  assert.deepEqual(r.calls, [1, 2, 2]);
});

test('bounded in bytes: the least recently used bodies go first; a body over a quarter of the bound is not held', () => {
  const lists = new RenderedLists<Item>(() => true, 100);
  const r = counting();
  const items = [1, 2, 3, 4, 5].map((n) => [{ id: n, end: 1000 + n }]);
  const at = (n: number): Buffer => lists.body({ ...key, to: n }, items[n - 1]!, 'c', r.render);
  const first = [1, 2, 3, 4].map(at);
  assert.ok(first.every((b) => b.length === 22), String(first.map((b) => b.length)));
  // 4 × 22 held; 1 used again (the most recent now); a fifth pushes out the least recent: 2
  assert.equal(at(1), first[0]);
  at(5);
  assert.equal(at(1), first[0]);
  assert.equal(at(3), first[2]);
  assert.notEqual(at(2), first[1]);

  const small = new RenderedLists<Item>(() => true, 60);
  const x = [{ id: 1, end: 10000 }];
  assert.notEqual(small.body(key, x, 'c', r.render), small.body(key, x, 'c', r.render));
});

test('a period that moves with the time (no key): the items are reused, the body is not remembered', () => {
  const lists = new RenderedLists<Item>((s) => s.end !== null);
  const items = [{ id: 1, end: 5 }];
  const r = counting();
  const a = lists.body(null, items, 'c', r.render);
  const b = lists.body(null, items, 'c', r.render);
  assert.notEqual(a, b);
  assert.equal(a.toString(), b.toString());
  assert.deepEqual(r.calls, [1]);
});
