/** Alert delivery settings (src/core/alerts/delivery.ts): quiet hours across midnight and DST, the collapse of repeats. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkQuietHours, collapse, inQuietHours, quietEnds, rememberSent } from '../../../src/core/alerts/delivery.js';
import { utc } from '../drives/make.js';

const berlin = { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' };

test('quiet hours across midnight (Berlin winter, UTC+1)', () => {
  assert.equal(inQuietHours(berlin, utc(2026, 1, 15, 20, 59)), false); // 21:59
  assert.equal(inQuietHours(berlin, utc(2026, 1, 15, 21, 0)), true); // 22:00
  assert.equal(inQuietHours(berlin, utc(2026, 1, 16, 5, 59)), true); // 06:59
  assert.equal(inQuietHours(berlin, utc(2026, 1, 16, 6, 0)), false); // 07:00
  assert.equal(quietEnds(berlin, utc(2026, 1, 15, 21, 30)), utc(2026, 1, 16, 6, 0));
  assert.equal(quietEnds(berlin, utc(2026, 1, 16, 2, 0)), utc(2026, 1, 16, 6, 0));
  assert.equal(quietEnds(berlin, utc(2026, 1, 16, 12, 0)), null);
});

test('quiet hours within a day, and from = to meaning none', () => {
  const lunch = { from: '12:00', to: '13:30', timezone: 'UTC' };
  assert.equal(inQuietHours(lunch, utc(2026, 5, 1, 12, 0)), true);
  assert.equal(inQuietHours(lunch, utc(2026, 5, 1, 13, 30)), false);
  assert.equal(quietEnds(lunch, utc(2026, 5, 1, 12, 10)), utc(2026, 5, 1, 13, 30));
  assert.equal(inQuietHours({ from: '08:00', to: '08:00', timezone: 'UTC' }, utc(2026, 5, 1, 8, 0)), false);
  assert.equal(inQuietHours(null, utc(2026, 5, 1, 8, 0)), false);
});

test('DST: the night of the spring change is an hour shorter, of the autumn change an hour longer', () => {
  // 2026-03-29: Berlin goes from UTC+1 to UTC+2 at 02:00 local
  const springStart = utc(2026, 3, 28, 21, 0); // 22:00 CET
  assert.equal(quietEnds(berlin, springStart), utc(2026, 3, 29, 5, 0)); // 07:00 CEST
  assert.equal(quietEnds(berlin, springStart)! - springStart, 8 * 3600);
  // 2026-10-25: from UTC+2 to UTC+1 at 03:00 local
  const autumnStart = utc(2026, 10, 24, 20, 0); // 22:00 CEST
  assert.equal(quietEnds(berlin, autumnStart), utc(2026, 10, 25, 6, 0)); // 07:00 CET
  assert.equal(quietEnds(berlin, autumnStart)! - autumnStart, 10 * 3600);
  assert.equal(inQuietHours(berlin, utc(2026, 10, 25, 5, 59)), true);
  assert.equal(inQuietHours(berlin, utc(2026, 10, 25, 6, 0)), false);
});

test('DST: a `to` inside the spring gap ends the quiet hours when the clock jumps over it', () => {
  const q = { from: '01:00', to: '02:30', timezone: 'Europe/Berlin' };
  // 01:30 CET on the change day: 02:30 does not exist; the clock jumps at 01:00 UTC
  assert.equal(quietEnds(q, utc(2026, 3, 29, 0, 30)), utc(2026, 3, 29, 1, 0));
  assert.equal(inQuietHours(q, utc(2026, 3, 29, 1, 0)), false); // 03:00 CEST
});

test('quiet hours body check names the field', () => {
  assert.deepEqual(checkQuietHours(berlin), { ok: true, quiet: berlin });
  const field = (b: unknown): string | null => {
    const r = checkQuietHours(b);
    return r.ok ? null : r.field;
  };
  assert.equal(field({ ...berlin, from: '24:00' }), 'from');
  assert.equal(field({ ...berlin, to: '7:00' }), 'to');
  assert.equal(field({ ...berlin, timezone: 'Mars/Olympus' }), 'timezone');
  assert.equal(field('22-07'), 'body');
});

test('collapse: the same text from the same car within 60 s', () => {
  let sent = rememberSent([], 'DEMO1', 'DEMO1 reached 80 %', 1000);
  assert.equal(collapse(sent, 'DEMO1', 'DEMO1 reached 80 %', 1060), true);
  assert.equal(collapse(sent, 'DEMO1', 'DEMO1 reached 80 %', 1061), false);
  assert.equal(collapse(sent, 'DEMO2', 'DEMO1 reached 80 %', 1010), false);
  assert.equal(collapse(sent, 'DEMO1', 'DEMO1 reached 81 %', 1010), false);
  sent = rememberSent(sent, 'DEMO2', 'x', 1070); // prunes the old entry
  assert.deepEqual(sent, [{ vehicleId: 'DEMO2', text: 'x', time: 1070 }]);
});
