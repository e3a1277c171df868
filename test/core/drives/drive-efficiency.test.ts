/** A drive's efficiency (src/core/drives/battery.ts driveEfficiency): Wh per distance unit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { driveEfficiency } from '../../../src/core/drives/battery.js';
import { drive } from './make.js';

test('from the energy used less the energy recovered, when the car reports it', () => {
  assert.equal(driveEfficiency(drive({ distance: 20, energyUsed: 3.5, energyRecovered: null }), null), 175);
  assert.equal(driveEfficiency(drive({ distance: 20, energyUsed: 3.5, energyRecovered: 0.5 }), 75), 150);
  assert.equal(driveEfficiency(drive({ distance: 30, energyUsed: 5, energyRecovered: 0 }), null), 166.7);
});

test('else from the SOC used × the capacity', () => {
  assert.equal(driveEfficiency(drive({ distance: 20, energyUsed: null, socStart: 80, socEnd: 76 }), 75), 150);
  assert.equal(driveEfficiency(drive({ distance: 20, energyUsed: null, socStart: 80, socEnd: 76 }), null), null);
  assert.equal(driveEfficiency(drive({ distance: 20, energyUsed: null, socStart: null, socEnd: 76 }), 75), null);
});

test('null without a distance above 0', () => {
  assert.equal(driveEfficiency(drive({ distance: 0, energyUsed: 1 }), 75), null);
  assert.equal(driveEfficiency(drive({ distance: null, energyUsed: 1 }), 75), null);
  assert.equal(driveEfficiency(drive({ distance: -3, energyUsed: 1 }), 75), null);
});

test('per mile for a car in miles (the same formula, the distance in its unit)', () => {
  assert.equal(driveEfficiency(drive({ units: 'M', distance: 10, energyUsed: 2.8 }), null), 280);
});
