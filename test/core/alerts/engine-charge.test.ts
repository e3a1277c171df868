/** Alert engine: charge-started, charge-done, charge-stopped (flaps, done, a restart in the wait). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextWake } from '../../../src/core/alerts/engine.js';
import type { AlertRule } from '../../../src/core/alerts/rules.js';
import { Run, S, T0, tick } from './make.js';

const rules: AlertRule[] = [
  { id: 1, kind: 'charge-started' },
  { id: 2, kind: 'charge-done' },
  { id: 3, kind: 'charge-stopped', after: 120 },
];

test('started and done on the transitions, nothing for the first state seen or repeats', () => {
  const r = new Run(rules);
  assert.deepEqual(r.at(T0, S(40, 'charging')), []); // the first state: may be hours into a charge
  r.at(T0 + 10, S(41, 'charging'));
  const done = r.at(T0 + 20, S(100, 'done', 310));
  assert.deepEqual(done.map((a) => [a.kind, a.text]), [['charge-done', 'DEMO1 finished charging at 100 % (310 km)']]);
  assert.deepEqual(r.at(T0 + 30, S(100, 'done')), []);
  const started = r.at(T0 + 5000, S(60, 'charging'));
  assert.deepEqual(started.map((a) => [a.kind, a.text]), [['charge-started', 'DEMO1 started charging at 60 %']]);
  r.at(T0 + 99_999, tick);
  assert.deepEqual(r.kinds(), ['charge-done', 'charge-started']);
});

test('a flap that resumes within after: nothing at all', () => {
  const r = new Run(rules);
  r.at(T0, S(40, 'stopped'));
  r.at(T0 + 10, S(40, 'charging'));
  r.at(T0 + 20, S(41, 'stopped'));
  r.at(T0 + 100, tick);
  r.at(T0 + 139, S(41, 'charging')); // 119 s later
  r.at(T0 + 1000, tick);
  assert.deepEqual(r.kinds(), ['charge-started']);
});

test('a stop not resumed within after: one charge-stopped, at the right moment and not before', () => {
  const r = new Run(rules);
  r.at(T0, S(40, 'stopped'));
  r.at(T0 + 10, S(64, 'charging'));
  r.at(T0 + 20, S(64, 'stopped'));
  assert.equal(nextWake(r.state, r.rules, T0 + 20), T0 + 140);
  assert.deepEqual(r.at(T0 + 139, tick), []);
  const a = r.at(T0 + 140, tick);
  assert.deepEqual(a.map((x) => [x.kind, x.text, x.time]), [['charge-stopped', 'DEMO1: charging stopped at 64 % and did not resume', T0 + 140]]);
  assert.deepEqual(r.at(T0 + 200, tick), []);
  assert.deepEqual(r.at(T0 + 300, S(64, 'stopped')), []);
  assert.equal(nextWake(r.state, r.rules, T0 + 300), null);
  // charging again later is a new charge; its own stop fires again
  r.at(T0 + 400, S(64, 'charging'));
  r.at(T0 + 500, S(65, 'interrupted'));
  assert.equal(r.at(T0 + 620, tick).length, 1);
  assert.deepEqual(r.kinds(), ['charge-started', 'charge-stopped', 'charge-started', 'charge-stopped']);
});

test('done never fires charge-stopped, even after a stop just before it', () => {
  const r = new Run(rules);
  r.at(T0, S(40, 'stopped'));
  r.at(T0 + 10, S(99, 'charging'));
  r.at(T0 + 20, S(100, 'stopped'));
  r.at(T0 + 60, S(100, 'done'));
  r.at(T0 + 10_000, tick);
  assert.deepEqual(r.kinds(), ['charge-started', 'charge-done']);
});

test('a longer after: a resume at 300 s of 600 fires nothing; the stop after it fires once', () => {
  const r = new Run([{ id: 3, kind: 'charge-stopped', after: 600 }]);
  r.at(T0, S(40, 'charging'));
  r.at(T0 + 10, S(40, 'stopped'));
  r.at(T0 + 310, S(41, 'charging'));
  assert.deepEqual(r.at(T0 + 2000, tick), []);
  r.at(T0 + 2010, S(50, 'stopped'));
  assert.deepEqual(r.at(T0 + 2609, tick), []);
  assert.equal(r.at(T0 + 2610, tick).length, 1);
});

test('restart in the middle of the wait: the state through JSON, still exactly once', () => {
  const first = new Run(rules);
  first.at(T0, S(40, 'stopped'));
  first.at(T0 + 10, S(64, 'charging'));
  first.at(T0 + 20, S(64, 'stopped'));
  first.at(T0 + 60, tick);
  const saved = JSON.stringify(first.state);
  // node A fires, then dies after its checkpoint; node B resumes from that checkpoint
  const fired = first.at(T0 + 150, tick);
  assert.equal(fired.length, 1);
  const checkpoint = JSON.stringify(first.state);
  const second = new Run(rules);
  second.state = JSON.parse(checkpoint);
  second.at(T0 + 160, tick);
  second.at(T0 + 200, S(64, 'stopped'));
  assert.deepEqual(second.fired, []);
  // restored from before the firing: it fires (once) on the next tick
  const third = new Run(rules);
  third.state = JSON.parse(saved);
  assert.deepEqual(third.at(T0 + 100, tick), []);
  assert.equal(third.at(T0 + 140, tick).length, 1);
  assert.deepEqual(third.at(T0 + 141, tick), []);
});

test('a stop pending before the rule was created does not fire it', () => {
  const r = new Run([]);
  r.at(T0, S(40, 'charging'));
  r.at(T0 + 10, S(50, 'stopped'));
  r.rules = [{ id: 3, kind: 'charge-stopped', after: 120 }];
  r.at(T0 + 86_400, tick);
  assert.deepEqual(r.fired, []);
  r.at(T0 + 86_500, S(50, 'charging'));
  r.at(T0 + 86_510, S(51, 'stopped'));
  assert.equal(r.at(T0 + 86_630, tick).length, 1);
});

test('stopped, then done after a pause longer than the flap window: charge-done; after an hour, nothing', () => {
  // charge-stopped waits longer than the pause: only charge-done (the charge finished after all)
  const r = new Run([{ id: 2, kind: 'charge-done' }, { id: 3, kind: 'charge-stopped', after: 600 }]);
  r.at(T0, S(40, 'charging'));
  r.at(T0 + 10, S(90, 'stopped'));
  const done = r.at(T0 + 210, S(100, 'done', 310));
  assert.deepEqual(done.map((a) => a.kind), ['charge-done']);
  assert.deepEqual(r.at(T0 + 5000, tick), []);
  // charge-stopped told of the stop first: then the charge-done too
  const told = new Run([{ id: 2, kind: 'charge-done' }, { id: 3, kind: 'charge-stopped', after: 120 }]);
  told.at(T0, S(40, 'charging'));
  told.at(T0 + 10, S(90, 'stopped'));
  told.at(T0 + 130, tick);
  told.at(T0 + 300, S(100, 'done'));
  assert.deepEqual(told.kinds(), ['charge-stopped', 'charge-done']);
  // a done more than an hour after the stop is a parked car's state
  const late = new Run([{ id: 2, kind: 'charge-done' }]);
  late.at(T0, S(40, 'charging'));
  late.at(T0 + 10, S(90, 'stopped'));
  assert.deepEqual(late.at(T0 + 10 + 3601, S(90, 'done')), []);
});
