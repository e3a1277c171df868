/**
 * Alert engine properties (fast-check): over random sequences of records, link changes, ticks and
 * drives, no rule fires twice without its re-arm condition between, the waits never fire early,
 * a JSON round trip of the state at any point changes nothing, and the given state is never changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { emptyAlertState, evaluate, placeMargin, type AlertInput, type AlertState } from '../../../src/core/alerts/engine.js';
import type { Alert } from '../../../src/core/alerts/alert.js';
import type { AlertRule } from '../../../src/core/alerts/rules.js';
import { fuzzParams } from '../../support/fuzz.js';
import { drive } from '../drives/make.js';
import { car, D, L, link, S, T0, WORK } from './make.js';

const rules: AlertRule[] = [
  { id: 1, kind: 'soc-reached', threshold: 80 },
  { id: 2, kind: 'soc-below', threshold: 20 },
  { id: 3, kind: 'charge-started' },
  { id: 4, kind: 'charge-done' },
  { id: 5, kind: 'charge-stopped', after: 120 },
  { id: 6, kind: 'offline', after: 600 },
  { id: 7, kind: 'place-arrive', place: 7 },
  { id: 8, kind: 'place-leave', place: 7 },
  { id: 9, kind: 'v12-low', threshold: 12, after: 300 },
  { id: 10, kind: 'drive-report' },
];

const STATES = ['charging', 'topoff', 'done', 'stopped', 'prepare', 'heating'];

// SOCs at the thresholds' edges as well as any
const socs = fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(19, 20, 21, 79, 80, 81));

const input: fc.Arbitrary<AlertInput> = fc.oneof(
  fc.tuple(socs, fc.constantFrom(...STATES)).map(([soc, st]) => S(soc, st, soc * 3)),
  fc.tuple(socs, fc.constantFrom(...STATES.slice(0, 4))).map(([soc, st]) => S(soc, st)),
  fc.integer({ min: 110, max: 135 }).map((v) => D(v / 10)),
  fc.integer({ min: 0, max: 400 }).map((m) => L(WORK.lat + m / 111_195, WORK.lon)),
  fc.boolean().map(link),
  fc.constant<AlertInput>({ type: 'tick' }),
  fc.integer({ min: 1, max: 5 }).map((k): AlertInput => ({ type: 'drive', drive: drive({ key: `live:${k}`, start: T0, end: T0 + 600, distance: 5 }) })),
);

// gaps near the waits' edges (120, 300, 600 s) as well as any
const gap = fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constantFrom(1, 5, 115, 119, 120, 121, 295, 299, 300, 595, 599, 600, 601, 1800));
const step = fc.oneof({ arbitrary: input, weight: 4 }, { arbitrary: fc.constant<AlertInput>({ type: 'tick' }), weight: 2 }, { arbitrary: fc.boolean().map(link), weight: 1 });
const steps = fc.array(fc.tuple(gap, step), { minLength: 20, maxLength: 150 });

interface Step {
  t: number;
  input: AlertInput;
}

const timed = (list: [number, AlertInput][]): Step[] => {
  let t = T0;
  return list.map(([dt, i]) => ({ t: (t += dt), input: i }));
};

function run(list: Step[], roundTripAt: (i: number) => boolean): { fired: Alert[][]; state: AlertState } {
  let state = emptyAlertState();
  const fired: Alert[][] = [];
  list.forEach((s, i) => {
    if (roundTripAt(i)) state = JSON.parse(JSON.stringify(state)) as AlertState;
    const before = JSON.stringify(state);
    const r = evaluate(state, rules, s.input, s.t, car);
    assert.equal(JSON.stringify(state), before, 'evaluate changed the state it was given');
    state = r.state;
    fired.push(r.fired);
  });
  return { fired, state };
}

const dataOf = (i: AlertInput, code: string): string[] | null => (i.type === 'record' && i.code === code ? i.data.split(',') : null);

/**
 * Checks every firing against a model of its re-arm condition kept from the inputs alone: what
 * must have been seen since the rule last fired.
 */
function checkRearm(list: Step[], fired: Alert[][]): void {
  // `${rule}` → re-armed since it last fired; the place rules need a position on the other side first
  const since = new Map<string, boolean>([
    ['7', false],
    ['8', false],
  ]);
  const rearm = (rule: number): void => void since.set(String(rule), true);
  let charging: boolean | null = null;
  // soc-reached: a charge start and a SOC below 80 since it last fired, in either order
  let started1 = true;
  let below1 = true;
  let downAt: number | null = null;
  let stopAt: number | null = null;
  let offlineFired = false;
  let positioned = false;
  list.forEach((s, i) => {
    const sd = dataOf(s.input, 'S');
    if (sd) {
      const soc = Number(sd[0]);
      const now = ['charging', 'topoff'].includes(sd[4] ?? '');
      if (soc < 80) below1 = true;
      if (soc >= 21) rearm(2);
      if (now && charging !== true) started1 = true;
      if (started1 && below1) rearm(1);
      if (!now) rearm(3);
      if (now) {
        rearm(4);
        rearm(5);
        stopAt = null;
      } else if (charging === true && sd[4] !== 'done') stopAt = s.t;
      else if (sd[4] === 'done') stopAt = null;
      charging = now;
    }
    const dd = dataOf(s.input, 'D');
    if (dd && Number(dd[14]) >= 12.2) rearm(9);
    const ld = dataOf(s.input, 'L');
    if (ld) {
      const m = (Number(ld[0]) - WORK.lat) * 111_195;
      // necessary conditions, a metre of slack for the rounding of the distance
      // the first position: outside the circle (also in the margin) counts as outside
      if (m > WORK.radius + placeMargin(WORK.radius) - 1 || (!positioned && m > WORK.radius - 1)) rearm(7);
      if (m < WORK.radius + 1) rearm(8);
      if (ld[0] !== '0' || ld[1] !== '0') positioned = true;
    }
    if (s.input.type === 'record' || (s.input.type === 'link' && s.input.online)) {
      rearm(6);
      downAt = null;
    } else if (s.input.type === 'link' && !s.input.online) downAt ??= s.t;
    for (const a of fired[i] ?? []) {
      const key = String(a.rule);
      if (a.kind === 'online') {
        assert.ok(offlineFired, 'online without offline');
        offlineFired = false;
        continue;
      }
      if (a.kind === 'drive-report') continue; // once per key: the last property
      if (a.kind === 'offline') {
        assert.ok(downAt !== null && s.t - downAt >= 600, 'offline before its time');
        offlineFired = true;
      }
      if (a.kind === 'charge-stopped') assert.ok(stopAt !== null && s.t - stopAt >= 120, 'charge-stopped before its time');
      if (a.kind === 'soc-reached') started1 = below1 = false;
      assert.notEqual(since.get(key), false, `rule ${key} (${a.kind}) fired twice without its re-arm condition between`);
      since.set(key, false);
    }
  });
}

test('no rule fires twice without its re-arm condition between; the waits never fire early', () => {
  fc.assert(
    fc.property(steps, (list) => {
      const s = timed(list);
      checkRearm(s, run(s, () => false).fired);
    }),
    fuzzParams(300),
  );
});

test('a JSON round trip of the state at any point gives the same alerts and the same state', () => {
  fc.assert(
    fc.property(steps, fc.array(fc.boolean(), { minLength: 150, maxLength: 150 }), (list, at) => {
      const s = timed(list);
      const plain = run(s, () => false);
      const tripped = run(s, (i) => at[i] === true);
      assert.deepEqual(tripped.fired, plain.fired);
      assert.deepEqual(tripped.state, plain.state);
      assert.deepEqual(JSON.parse(JSON.stringify(plain.state)), plain.state);
    }),
    fuzzParams(200),
  );
});

test('each drive key is reported once however often it is delivered', () => {
  fc.assert(
    fc.property(steps, (list) => {
      const s = timed(list);
      const keys = run(s, () => false)
        .fired.flat()
        .filter((a) => a.kind === 'drive-report');
      const delivered = new Set(s.flatMap((x) => (x.input.type === 'drive' ? [x.input.drive.key] : [])));
      assert.equal(keys.length, delivered.size);
    }),
    fuzzParams(200),
  );
});

test('in place gives what a copy gives; an evaluation that says nothing changed moved only readings', () => {
  /** What must be saved before an alert: the memos and the facts the rules decide on (not the readings). */
  const deciding = (s: AlertState): string => {
    const f = s.facts;
    return JSON.stringify([s.memos, f.chargeState, f.charging, f.chargeSeq, f.stop, f.online, f.linkSince, f.units]);
  };
  fc.assert(
    fc.property(steps, (raw) => {
      let copy = emptyAlertState();
      const own = emptyAlertState();
      for (const s of timed(raw)) {
        const before = deciding(copy);
        const a = evaluate(copy, rules, s.input, s.t, car);
        const b = evaluate(own, rules, s.input, s.t, car, { inPlace: true });
        assert.equal(b.state, own, 'the same object');
        assert.deepEqual(b.fired, a.fired);
        assert.equal(b.changed, a.changed);
        assert.deepEqual(JSON.parse(JSON.stringify(own)), JSON.parse(JSON.stringify(a.state)));
        if (!a.changed) assert.equal(deciding(a.state), before, 'unchanged means the deciding part is as it was');
        copy = a.state;
      }
    }),
    fuzzParams(200),
  );
});
