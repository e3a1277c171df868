/** The fields the session tracker reads from live records (src/core/drives/log-fields.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseD, parseL, parseS, pickFields } from '../../../src/core/drives/log-fields.js';

test('pickFields: the wanted 1-based fields of a line as a full split gives them; past the end, undefined', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: fc.constantFrom('a', '1', '.', ',', ' ', '-') }), { maxLength: 12 }).map((xs) => xs.join(',')),
      fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { maxLength: 10 }).map((xs) => xs.sort((a, b) => a - b)),
      (line, wanted) => {
        const all = line.split(',');
        assert.deepEqual(pickFields(line, wanted), wanted.map((n) => all[n - 1]));
      },
    ),
  );
});

test('parse: the fields of live S, D and L the tracker reads; missing, empty and text read as null', () => {
  const s = parseS('81.5,K,0,0,Charging,Standard,300,280,16,0,0,123,0,21,0,0,0,0,160,0,0,400,90,0,0,0,0,0,0,450,0,-7.2,390.5,97,0,0,-10.5,0,12.3');
  assert.deepEqual(s, { soc: 81.5, units: 'K', chargeState: 'charging', chargeMode: 'standard', chargedKwh: 12.3, gridKwh: 12.3, power: 7.2, soh: 97 });
  assert.deepEqual(parseS('55,M,,,'), { soc: 55, units: 'M', chargeState: null, chargeMode: null, chargedKwh: null, gridKwh: null, power: null, soh: null });
  assert.deepEqual(parseD('140,8,4,30,40,25,123,12345.6'), { ignition: true, odometer: 12345.6 });
  assert.deepEqual(parseD('12,8,4,30,40,25,123,0'), { ignition: false, odometer: null });
  assert.deepEqual(parseD(''), { ignition: null, odometer: null });
  assert.deepEqual(parseL('51.5,-0.1,90,20,1,1,60.0,123,2,15.5,1.250,0.100'), { position: { lat: 51.5, lon: -0.1 }, speed: 60, used: 1.25, recovered: 0.1 });
  assert.deepEqual(parseL('0,0,90,20,1,1,x'), { position: null, speed: null, used: null, recovered: null });
});
