import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessOf, allows, refusal } from '../../src/core/auth/vehicle-access.js';
import { shareAllows, shareReceives, vehicleOfTopic } from '../../src/core/mqtt/share-acl.js';

test('the access model: owner, control, view, none and what each allows', () => {
  assert.equal(accessOf(1, 1, undefined), 'owner');
  assert.equal(accessOf(1, 1, 'view'), 'owner');
  assert.equal(accessOf(2, 1, 'control'), 'control');
  assert.equal(accessOf(2, 1, 'view'), 'view');
  assert.equal(accessOf(2, 1, undefined), 'none');
  const table = (['owner', 'control', 'view', 'none'] as const).map((a) => [a, allows(a, 'view'), allows(a, 'control'), allows(a, 'owner')]);
  assert.deepEqual(table, [
    ['owner', true, true, true],
    ['control', true, true, false],
    ['view', true, false, false],
    ['none', false, false, false],
  ]);
  assert.match(refusal('view', 'control')!, /view only/);
  assert.match(refusal('control', 'owner')!, /only the owner/);
  assert.equal(refusal('none', 'control'), null, 'answered as an unknown vehicle');
  assert.equal(refusal('control', 'control'), null);
});

test('shared MQTT topics: the vehicle under its owner, view reads, control commands', () => {
  assert.deepEqual(vehicleOfTopic('ovms/demo/demo1/metric/v/b/soc'), { owner: 'demo', vehicleId: 'DEMO1', rest: 'metric/v/b/soc' });
  assert.deepEqual(vehicleOfTopic('ovms/demo/DEMO1/#'), { owner: 'demo', vehicleId: 'DEMO1', rest: '#' });
  assert.equal(vehicleOfTopic('ovms/demo/+/metric'), null);
  assert.equal(vehicleOfTopic('ovms/+/DEMO1/#'), null);
  assert.equal(vehicleOfTopic('other/demo/DEMO1'), null);
  assert.equal(shareAllows('view', 'metric/x', 'read'), true);
  assert.equal(shareAllows('view', 'client/a/command/1', 'write'), false);
  assert.equal(shareAllows('control', 'client/a/command/1', 'write'), true);
  assert.equal(shareAllows('control', 'client/a/active', 'write'), true);
  assert.equal(shareAllows('control', 'client/a/request/config', 'write'), false);
  assert.equal(shareAllows('control', 'metric/x', 'write'), false);
  assert.equal(shareReceives('view', 'client/a/response/1'), false);
  assert.equal(shareReceives('view', 'metric/x'), true);
  assert.equal(shareReceives('control', 'client/a/response/1'), true);
});
