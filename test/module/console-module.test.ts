/**
 * Module commands (docs/protocol/module-console.md §6): `boot [status]` from the module's boot information,
 * `ota [status [nocheck]]` with its aligned lines, and `module reset`, which answers first and
 * reboots the module after the configured delay (cancelled by dispose()).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('boot status: time since boot, boot time, reset count, reason and reset codes', async () => {
  const { run } = setup();
  const expected =
    'Last boot was 3600 second(s) ago\n' +
    'Time at boot: 2026-01-15 08:12:44 UTC\n' +
    '  This is reset #2 since last power cycle\n' +
    '  Detected boot reason: SoftReset (12/12)\n' +
    '  Reset reason: esp_restart (3)\n' +
    '  Crash counters: 0 total, 0 early\n' +
    '  Auto init level: Full\n';
  assert.equal(await run('boot status'), expected);
  assert.equal(await run('boot'), expected, 'plain boot is boot status');
});

test('boot status after a power-on and after a crash', async () => {
  const { run, services } = setup();
  services.boot = { bootTime: services.vehicle.time - 5, resetCount: 0, reason: 'PowerOn' };
  const on = await run('boot');
  assert.match(on, /^Last boot was 5 second\(s\) ago\n/);
  assert.match(on, /\n {2}This is reset #0 since last power cycle\n {2}Detected boot reason: PowerOn \(1\/14\)\n {2}Reset reason: Power-on event \(1\)\n/);
  services.boot = { bootTime: services.vehicle.time, resetCount: 3, reason: 'Crash' };
  assert.match(await run('boot'), /\n {2}Reset reason: Exception\/panic \(4\)\n {2}Crash counters: 1 total, 0 early\n/);
});

test('ota status: label padded to column 20, running partition from the version string', async () => {
  const { run, services } = setup();
  const expected =
    'Hardware:          OVMS WIFI BLE BT cores=2 rev=ESP32/3\n' +
    `Firmware:          ${services.firmware}\n` +
    'Running partition: ota_0\n' +
    'Boot partition:    ota_0\n' +
    'OTA_O image:       3.3.006-259-g1aa1daff/ota_0/main\n';
  assert.equal(await run('ota status'), expected);
  assert.equal(await run('ota'), expected);
  assert.equal(await run('ota status nocheck'), expected);
});

test('ota status: the hardware metric when set', async () => {
  const { run, vehicle } = setup();
  vehicle.metrics.set('m.hardware', 'OVMS WIFI BLE BT cores=2 rev=ESP32/3; MODEM SIM7600', vehicle.time);
  assert.match(await run('ota'), /^Hardware: {10}OVMS WIFI BLE BT cores=2 rev=ESP32\/3; MODEM SIM7600\n/);
});

test('module reset: answers, then reboots the module after the delay', async () => {
  const { run, services, console } = setup({ rebootDelayMs: 20 });
  assert.equal(await run('module reset'), 'Resetting system...\n');
  assert.equal(services.reboots, 0, 'not before the answer is out');
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(services.reboots, 1);
  console.dispose();
});

test('module reset: dispose() before the delay cancels the reboot', async () => {
  const { run, services, console } = setup({ rebootDelayMs: 20 });
  await run('module reset');
  console.dispose();
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(services.reboots, 0);
});
