/** Alert engine (src/core/alerts/engine.ts): soc-reached and soc-below, crossed both ways. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Run, S, T0 } from './make.js';

test('soc-reached: once per charge when reached while charging, with the range in the text', () => {
  const r = new Run([{ id: 1, kind: 'soc-reached', threshold: 80 }]);
  r.at(T0, S(60, 'stopped'));
  r.at(T0 + 10, S(61, 'charging'));
  assert.deepEqual(r.at(T0 + 20, S(79, 'charging', 240)), []);
  const a = r.at(T0 + 30, S(80, 'charging', 248));
  assert.deepEqual(a, [{ rule: 1, kind: 'soc-reached', vehicleId: 'DEMO1', time: T0 + 30, text: 'DEMO1 reached 80 % (248 km)' }]);
  // a dip and a return within the same charge: nothing
  assert.deepEqual(r.at(T0 + 40, S(79, 'charging')), []);
  assert.deepEqual(r.at(T0 + 50, S(81, 'topoff')), []);
  // the charge ends; a drive; a new charge re-arms it
  r.at(T0 + 60, S(90, 'done'));
  r.at(T0 + 1000, S(70, 'stopped'));
  r.at(T0 + 2000, S(70, 'charging'));
  assert.equal(r.at(T0 + 3000, S(80, 'charging')).length, 1);
  assert.equal(r.fired.length, 2);
});

test('soc-reached: not while not charging, not when a charge starts above it', () => {
  const r = new Run([{ id: 1, kind: 'soc-reached', threshold: 80 }]);
  r.at(T0, S(85, 'stopped'));
  r.at(T0 + 20, S(85, 'charging'));
  assert.deepEqual(r.at(T0 + 30, S(90, 'charging')), []);
});

test('soc-reached: a resume within 120 s is the same charge (no second alert)', () => {
  const r = new Run([{ id: 1, kind: 'soc-reached', threshold: 80 }]);
  r.at(T0, S(70, 'charging'));
  assert.equal(r.at(T0 + 10, S(80, 'charging')).length, 1);
  r.at(T0 + 20, S(79, 'stopped'));
  r.at(T0 + 100, S(79, 'charging'));
  assert.deepEqual(r.at(T0 + 110, S(80, 'charging')), []);
});

test('soc-below: once when it falls below while not charging; re-armed at threshold + 1', () => {
  const r = new Run([{ id: 2, kind: 'soc-below', threshold: 20 }]);
  r.at(T0, S(25, 'stopped'));
  assert.deepEqual(r.at(T0 + 10, S(20, 'stopped')), []); // at the threshold is not below
  const a = r.at(T0 + 20, S(19, 'stopped', 45));
  assert.equal(a.length, 1);
  assert.equal(a[0]?.text, 'DEMO1 is down to 19 % (45 km)');
  assert.deepEqual(r.at(T0 + 30, S(18, 'stopped')), []);
  assert.deepEqual(r.at(T0 + 40, S(20, 'stopped')), []); // back to 20: not re-armed (hysteresis)
  assert.deepEqual(r.at(T0 + 50, S(19, 'stopped')), []);
  r.at(T0 + 60, S(21, 'charging')); // 21 = threshold + 1: re-armed
  assert.deepEqual(r.at(T0 + 70, S(19, 'charging')), []); // below but charging
  assert.equal(r.at(T0 + 80, S(19, 'stopped')).length, 1);
  assert.equal(r.fired.length, 2);
});

test('a rule changed by its owner starts afresh; a rule removed forgets its state', () => {
  const r = new Run([{ id: 2, kind: 'soc-below', threshold: 20 }]);
  r.at(T0, S(15, 'stopped'));
  assert.equal(r.fired.length, 1);
  r.rules = [{ id: 2, kind: 'soc-below', threshold: 18 }];
  assert.equal(r.at(T0 + 10, S(15, 'stopped')).length, 1);
  r.rules = [];
  r.at(T0 + 20, S(15, 'stopped'));
  assert.deepEqual(r.state.memos, {});
});

test('soc-reached: after it fired, a new charge that starts above the threshold fires nothing', () => {
  const r = new Run([{ id: 1, kind: 'soc-reached', threshold: 80 }]);
  r.at(T0, S(70, 'charging'));
  assert.equal(r.at(T0 + 10, S(80, 'charging')).length, 1);
  r.at(T0 + 20, S(90, 'done'));
  r.at(T0 + 1000, S(88, 'charging'));
  assert.deepEqual(r.at(T0 + 2000, S(95, 'charging')), []);
  // below it while charging, then reaching it again in that (new) charge: fires
  r.at(T0 + 3000, S(79, 'charging'));
  assert.equal(r.at(T0 + 4000, S(80, 'charging')).length, 1);
});

test('the ends of the scale: soc-reached 0 once per charge; soc-below 100 re-armed at 100 %', () => {
  const reached = new Run([{ id: 1, kind: 'soc-reached', threshold: 0 }]);
  reached.at(T0, S(50, 'stopped'));
  assert.deepEqual(reached.at(T0 + 10, S(50, 'charging')).map((a) => a.kind), ['soc-reached']);
  assert.deepEqual(reached.at(T0 + 20, S(51, 'charging')), []);
  reached.at(T0 + 30, S(60, 'done'));
  assert.deepEqual(reached.at(T0 + 5000, S(60, 'charging')).map((a) => a.kind), ['soc-reached']);
  const below = new Run([{ id: 2, kind: 'soc-below', threshold: 100 }]);
  assert.deepEqual(below.at(T0, S(99, 'stopped')).map((a) => a.kind), ['soc-below']);
  assert.deepEqual(below.at(T0 + 10, S(98, 'stopped')), []);
  below.at(T0 + 20, S(100, 'done')); // full again: re-armed
  assert.deepEqual(below.at(T0 + 30, S(99, 'stopped')).map((a) => a.kind), ['soc-below']);
});
