/**
 * An alert the engine saved as fired whose notification was never written (the process died
 * between the two): the next life finds it pending in the saved state, not in the outbox, and
 * raises it; the life after finds it in the outbox and raises nothing (src/alerts/alert-service.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyAlertState, evaluate, type AlertState } from '../../src/core/alerts/engine.js';
import { sleep, sRecord } from './helpers.js';
import { events, kill, SETTLE, setup } from './restart-helpers.js';

test('a crash between the save of a fired alert and its notification: the next life raises it, once', async (ctx) => {
  const s = await setup(ctx, [{ kind: 'soc-below', threshold: 20 }]);
  const [rule] = s.ruleIds as [number];
  // what the engine saved just before the crash: soc-below fired, its notification not written yet
  const now = Math.floor(Date.now() / 1000);
  const rules = [{ id: rule, kind: 'soc-below' as const, threshold: 20 }];
  const ev = evaluate(emptyAlertState(), rules, { type: 'record', code: 'S', data: sRecord(15, 'stopped') }, now - 5, { vehicleId: 'TESTCAR', name: 'TESTCAR', units: 'K', places: [] });
  assert.deepEqual(ev.fired.map((a) => a.kind), ['soc-below']);
  const pending = [{ rule, kind: 'soc-below', text: ev.fired[0]!.text, time: now - 5 }];
  assert.notEqual(await s.store.alerts.saveState('TESTCAR', 0, JSON.stringify({ ...ev.state, pending }), true), null);

  // the next life looks at the car (connected nowhere) and finds the alert not in the outbox
  const first = await s.serve();
  const [hook] = await s.waitHooks(1);
  assert.equal(hook!.event, 'soc-below');
  assert.equal(hook!.rule, rule);
  assert.equal(hook!.text, 'TESTCAR is down to 15 % (190 km)');
  await s.delivered(1);
  await kill(first.run);

  // and the life after it finds it there: not raised again
  const second = await s.serve();
  await s.car(second.mp);
  await sleep(SETTLE);
  assert.deepEqual(events(s.hooks()), ['soc-below'], JSON.stringify(s.hooks()));
  await s.savedState((st) => (st as AlertState & { pending?: unknown[] }).pending === undefined, 'the pending alert cleared');
});
