/**
 * Vehicle control commands (docs/protocol/module-console.md §4.3, §4.4): each command's three answers (success,
 * failure, not available), its effect on the DEMO-like vehicle's metrics, argument handling
 * (`charge current` amps, homelink button and duration checks), the two-line climate control
 * answer, `vehicle status|list`, and `Error: No vehicle module selected` without a vehicle.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('charge start / stop: answers and the charging metrics', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('charge start'), 'Charge has been started\n');
  assert.equal(vehicle.metrics.get('v.c.charging'), true);
  assert.equal(vehicle.metrics.get('v.c.state'), 'charging');
  assert.equal(vehicle.metrics.get('v.d.cp'), true);
  assert.equal(await run('charge stop'), 'Charge has been stopped\n');
  assert.equal(vehicle.metrics.get('v.c.charging'), false);
  assert.equal(vehicle.metrics.get('v.d.cp'), false);
});

test('charge start / stop: failure and unsupported answers', async () => {
  const { run, vehicle } = setup();
  vehicle.outcomes.set('chargeStart', 'failed');
  vehicle.outcomes.set('chargeStop', 'unsupported');
  assert.equal(await run('charge start'), 'Error: Could not start charge\n');
  assert.equal(await run('charge stop'), 'Error: Charge stop functionality not available\n');
  vehicle.outcomes.set('chargeStart', 'unsupported');
  vehicle.outcomes.set('chargeStop', 'failed');
  assert.equal(await run('charge start'), 'Error: Charge start functionality not available\n');
  assert.equal(await run('charge stop'), 'Error: Could not stop charge\n');
  assert.equal(vehicle.metrics.get('v.c.charging'), false, 'nothing changed');
});

test('charge current: amps parsed as atoi, all three answers carry or omit them', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('charge current 16'), 'Charge current limit set to 16A\n');
  assert.equal(vehicle.metrics.get('v.c.climit'), 16);
  assert.equal(await run('charge current 10.7A'), 'Charge current limit set to 10A\n');
  assert.deepEqual(vehicle.calls.at(-1), ['chargeCurrent', 10]);
  vehicle.outcomes.set('chargeCurrent', 'failed');
  assert.equal(await run('charge current 32'), 'Error: Could not set charge current limit to 32A\n');
  vehicle.outcomes.set('chargeCurrent', 'unsupported');
  assert.equal(await run('charge current 32'), 'Error: Charge current limit functionality not available\n');
  assert.equal(await run('charge current'), 'Usage: charge current <amps>\n');
});

test('charge mode: the mode is a subcommand; DEMO does not have it', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('charge mode range'), 'Error: Charge mode functionality not available\n');
  assert.deepEqual(vehicle.calls.at(-1), ['chargeMode', 'range']);
  vehicle.outcomes.set('chargeMode', 'ok');
  assert.equal(await run('charge mode perf'), "Charge mode 'performance' set\n");
  vehicle.outcomes.set('chargeMode', 'failed');
  assert.equal(await run('charge mode storage'), 'Error: Could not set charge mode\n');
  assert.equal(await run('charge mode'), 'Subcommand required\nUsage: charge mode performance|range|standard|storage\n');
});

test('charge cooldown', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('charge cooldown'), 'Error: Cooldown functionality not available\n');
  vehicle.outcomes.set('chargeCooldown', 'ok');
  assert.equal(await run('charge cooldown'), 'Cooldown has been started\n');
  vehicle.outcomes.set('chargeCooldown', 'failed');
  assert.equal(await run('charge cooldown'), 'Error: Could not start cooldown\n');
});

test('lock / unlock: answers, the pin reaches the vehicle, v.e.locked follows', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('lock 1234'), 'Vehicle locked\n');
  assert.deepEqual(vehicle.calls.at(-1), ['lock', '1234']);
  assert.equal(vehicle.metrics.get('v.e.locked'), true);
  assert.equal(await run('unlock 1234'), 'Vehicle unlocked\n');
  assert.equal(vehicle.metrics.get('v.e.locked'), false);
  vehicle.outcomes.set('lock', 'failed');
  vehicle.outcomes.set('unlock', 'failed');
  assert.equal(await run('lock 1'), 'Error: vehicle could not be locked\n');
  assert.equal(await run('unlock 1'), 'Error: vehicle could not be unlocked\n');
  vehicle.outcomes.set('lock', 'unsupported');
  vehicle.outcomes.set('unlock', 'unsupported');
  assert.equal(await run('lock 1'), 'Error: Vehicle lock functionality not available\n');
  assert.equal(await run('unlock 1'), 'Error: Vehicle unlock functionality not available\n');
});

test('valet / unvalet: answers and v.e.valet', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('valet 1234'), 'Vehicle valet mode activated\n');
  assert.equal(vehicle.metrics.get('v.e.valet'), true);
  assert.equal(await run('unvalet 1234'), 'Vehicle valet mode deactivated\n');
  assert.equal(vehicle.metrics.get('v.e.valet'), false);
  vehicle.outcomes.set('valet', 'failed');
  vehicle.outcomes.set('unvalet', 'failed');
  assert.equal(await run('valet 1'), 'Error: vehicle could not activate valet mode\n');
  assert.equal(await run('unvalet 1'), 'Error: vehicle could not deactivate valet mode\n');
  vehicle.outcomes.set('valet', 'unsupported');
  assert.equal(await run('valet 1'), 'Error: Vehicle valet functionality not available\n');
});

test('wakeup switches the DEMO car on', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('wakeup'), 'Vehicle has been woken\n');
  assert.equal(vehicle.metrics.get('v.e.on'), true);
  vehicle.outcomes.set('wakeup', 'failed');
  assert.equal(await run('wakeup'), 'Error: vehicle could not be woken\n');
  vehicle.outcomes.set('wakeup', 'unsupported');
  assert.equal(await run('wakeup'), 'Error: Vehicle wake functionality not available\n');
});

test('climatecontrol on|off: two lines, the first with a trailing space', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('climatecontrol on'), 'Climate Control \non\n');
  assert.equal(vehicle.metrics.get('v.e.hvac'), true);
  assert.equal(await run('climatecontrol off'), 'Climate Control \noff\n');
  assert.equal(vehicle.metrics.get('v.e.hvac'), false);
  vehicle.outcomes.set('climate', 'failed');
  assert.equal(await run('climatecontrol on'), 'Error: Climate Control failed\n');
  vehicle.outcomes.set('climate', 'unsupported');
  assert.equal(await run('climatecontrol on'), 'Error: Climate Control functionality not available\n');
});

test('homelink: button range and minimum duration are checked before the vehicle is asked', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('homelink 0'), 'Error: Homelink button should be in range 1..3\n');
  assert.equal(await run('homelink 4'), 'Error: Homelink button should be in range 1..3\n');
  assert.equal(await run('homelink 2 99'), 'Error: Minimum homelink timer duration 100ms\n');
  assert.equal(vehicle.calls.length, 0);
  assert.equal(await run('homelink 2'), 'Error: Homelink functionality not available\n');
  assert.deepEqual(vehicle.calls.at(-1), ['homelink', 2, 1000]);
  vehicle.outcomes.set('homelink', 'ok');
  assert.equal(await run('homelink 3 500'), 'Homelink #3 activated\n');
  assert.deepEqual(vehicle.calls.at(-1), ['homelink', 3, 500]);
  vehicle.outcomes.set('homelink', 'failed');
  assert.equal(await run('homelink 1'), 'Error: Could not activate homelink #1\n');
});

test('vehicle status and vehicle list', async () => {
  const { run } = setup();
  assert.equal(await run('vehicle status'), "Vehicle module 'Demonstration Vehicle' (code DEMO) loaded and running\n");
  assert.equal(await run('vehicle list'), `Type            Name\n${'DEMO'.padEnd(15)} Demonstration Vehicle\n`);
});

test('without a vehicle type: Error: No vehicle module selected, and no action runs', async () => {
  const { run, vehicle } = setup();
  vehicle.typeCode = '';
  for (const cmd of ['stat', 'charge start', 'charge stop', 'charge current 16', 'charge mode range', 'lock 1', 'wakeup', 'climatecontrol on', 'homelink 1']) {
    assert.equal(await run(cmd), 'Error: No vehicle module selected\n', cmd);
  }
  assert.equal(await run('vehicle status'), 'No vehicle module selected\n');
  assert.equal(vehicle.calls.length, 0);
});
