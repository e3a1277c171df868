/**
 * `run` (docs/protocol/commands.md §7, docs/protocol/module-console.md §9): `Background execution started.` at once;
 * the commands run later, in order, each output an `info` notification `cmd.<resolved command
 * name with dots>` (`(done, no output)` when empty); options -ni/-no/-ns/-S/-P; the errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('run answers at once; the output arrives later as an info notification', async () => {
  const { run, console, services } = setup();
  assert.equal(await run('run metrics get v.b.soc'), 'Background execution started.\n');
  assert.deepEqual(services.notifications, [], 'nothing before the answer is out');
  await console.whenIdle();
  assert.deepEqual(services.notifications, [{ type: 'info', subtype: 'cmd.metrics.get', text: '50%\n' }]);
});

test('commands separated by ; run in order; subtypes use the full command names', async () => {
  const { run, console, services, vehicle } = setup();
  assert.equal(await run('run cha sta ; met l v.c.charging ; echo'), 'Background execution started.\n');
  await console.whenIdle();
  assert.deepEqual(services.notifications, [
    { type: 'info', subtype: 'cmd.charge.start', text: 'Charge has been started\n' },
    { type: 'info', subtype: 'cmd.metrics.list', text: `${'v.c.charging'.padEnd(40)} yes\n` },
    { type: 'info', subtype: 'cmd.echo', text: '\n' },
  ]);
  assert.equal(vehicle.metrics.get('v.c.charging'), true);
});

test('no output: (done, no output); an unknown command: cmd.none', async () => {
  const { run, console, services } = setup();
  await run('run config rm server.v3 nothing ; bogus');
  await console.whenIdle();
  assert.deepEqual(services.notifications, [
    { type: 'info', subtype: 'cmd.config.rm', text: '(done, no output)' },
    { type: 'info', subtype: 'cmd.none', text: 'Unrecognised command\n' },
  ]);
});

test('a sleeping command holds back the next one, not the answer', async () => {
  const { run, console, services } = setup();
  assert.equal(await run('run sleep 0.05 ; echo after'), 'Background execution started.\n');
  await console.whenIdle();
  assert.deepEqual(
    services.notifications.map((n) => [n.subtype, n.text]),
    [
      ['cmd.sleep', '(done, no output)'],
      ['cmd.echo', 'after\n'],
    ],
  );
});

test('-no and -ns run the commands without notifications (stream reaches no server link)', async () => {
  const { run, console, services, vehicle } = setup();
  assert.equal(await run('run -no lock 1'), 'Background execution started.\n');
  assert.equal(await run('run -ns -S8192 -P5 valet 1'), 'Background execution started.\n');
  await console.whenIdle();
  assert.deepEqual(services.notifications, []);
  assert.equal(vehicle.metrics.get('v.e.locked'), true);
  assert.equal(vehicle.metrics.get('v.e.valet'), true);
});

test('options only count before the command: later dashes are the command’s', async () => {
  const { run, console, services } = setup();
  await run('run -ni metrics list -c v.b.soc');
  await console.whenIdle();
  assert.deepEqual(services.notifications, [{ type: 'info', subtype: 'cmd.metrics.list', text: 'metrics set v.b.soc 50\n' }]);
});

test('errors: unknown option (with the usage), no command, no arguments', async () => {
  const { run, console, services } = setup();
  const usage = 'Usage: run [-n<i|o|s>] [-S<stacksize>] [-P<priority>] <command…> [; <command…>]\n';
  assert.equal(await run('run -x stat'), `ERROR: unknown option: -x\n${usage}`);
  assert.equal(await run('run -nq stat'), `ERROR: unknown option: -nq\n${usage}`);
  assert.equal(await run('run -ni ;'), 'ERROR: no command\n');
  assert.equal(await run('run'), usage);
  await console.whenIdle();
  assert.deepEqual(services.notifications, []);
});

test('dispose() stops the background commands', async () => {
  const { run, console, services } = setup();
  await run('run sleep 10 ; echo never');
  console.dispose();
  await console.whenIdle();
  assert.deepEqual(services.notifications, []);
});
