/**
 * One emulated module as a whole (src/module/module.ts): the console acts on the simulated
 * vehicle, `run` output becomes a notification for the links, `module reset` reboots, and the
 * module clock runs `speedup` times faster than real time.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import type { Notification } from '../../src/module/console/services.js';
import { renderL } from '../../src/core/metrics/v2-records.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

function moduleFor(t: TestContext, opts: { speedup?: number; clock?: () => number } = {}): EmulatedModule {
  const m = new EmulatedModule({ id: 'EMU0001', seed: 5, carPassword: 'NETPASS', adminPassword: 'admin', log: quiet, ...opts });
  t.after(() => m.stop());
  return m;
}

test('console commands act on the simulated vehicle and show in its metrics', async (t) => {
  const m = moduleFor(t);
  await m.start();
  const run = (line: string) => m.runner.execute(line);
  assert.match(await run('stat'), /^(Not charging|.* - .*)\nSOC: \d+(\.\d)?%\n/);
  assert.equal(await run('charge start'), 'Charge has been started\n');
  assert.equal(m.metrics.bool('v.c.charging'), true);
  assert.match(await run('stat'), /^Standard - Charging\n/);
  assert.equal(await run('charge stop'), 'Charge has been stopped\n');
  assert.equal(m.metrics.str('v.c.state'), 'stopped');
  assert.equal(await run('unlock 1234'), 'Vehicle unlocked\n');
  assert.equal(m.metrics.bool('v.e.locked'), false);
  assert.equal(await run('charge cooldown'), 'Error: Cooldown functionality not available\n');
  assert.match(await run('metrics list v.b.soc'), /^v\.b\.soc {34}\d+(\.\d)?%\n$/);
  assert.match(await run('location status'), /^Currently at 48\.\d{6},11\.\d{6} \(GPS lock/);
  assert.equal(await run('nosuchcommand'), 'Unrecognised command\n');
});

test('run delivers each command output as an info notification', async (t) => {
  const m = moduleFor(t);
  await m.start();
  const seen: Notification[] = [];
  m.onNotification((n) => seen.push(n));
  assert.equal(await m.runner.execute('run echo hi'), 'Background execution started.\n');
  const n = await eventually(() => seen.find((x) => x.subtype === 'cmd.echo'), 'the run notification');
  assert.equal(n.type, 'info');
  assert.equal(n.text, 'hi\n');
});

test('module reset reboots: the boot counter goes up and the reason is SoftReset', async (t) => {
  const m = moduleFor(t);
  await m.start();
  assert.equal(await m.runner.execute('module reset'), 'Resetting system...\n');
  const boot = await eventually(() => (m.bootInfo().resetCount === 1 ? m.bootInfo() : undefined), 'the reboot', 10_000);
  assert.equal(boot.reason, 'SoftReset');
  assert.match(await m.runner.execute('boot status'), /This is reset #1/);
});

test('the module clock runs speedup times faster than real time', (t) => {
  let real = Date.UTC(2026, 10, 22, 8, 0, 0);
  const m = moduleFor(t, { speedup: 60, clock: () => real });
  const start = m.now();
  real += 10_000;
  assert.equal(m.now() - start, 600, '10 real seconds are 10 module minutes');
});

test('the home location is defined, and the parked car is at it', async (t) => {
  const m = moduleFor(t);
  await m.start();
  const status = await m.runner.execute('location status');
  assert.match(status, /There is 1 location defined\n/);
  assert.match(status, /Active locations: home\n/);
});

test('a running module reports a current GPS fix (L field 6 is 1), also when sped up', async (t) => {
  let real = Date.UTC(2026, 10, 22, 8, 0, 0);
  const m = moduleFor(t, { speedup: 60, clock: () => real });
  await m.start();
  for (let k = 0; k < 5; k++) {
    real += 7_000 + k * 150; // 7 module minutes and some seconds: between simulation steps
    m.vehicle.advance(m.now());
    // the link renders a moment after the last advance (its own timer)
    const l = renderL(m.metrics, { distanceUnit: 'K', now: m.now() + 4 }).split(',');
    assert.equal(l[5], '1', `GPS not stale at step ${k}`);
  }
});
