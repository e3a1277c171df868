/**
 * Notifications, events and the console utilities (docs/protocol/module-console.md §8): `notify raise
 * text|command` (answer line and the notification emitted), `event raise [-d<ms>]`, `echo`,
 * `enable`/`disable`/`exit`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('notify raise text: the answer line and one notification', async () => {
  const { run, services } = setup();
  assert.equal(await run('notify raise text alert usr.test "Hello, world"'), 'Raise text notification for alert/usr.test as Hello, world\n');
  assert.deepEqual(services.notifications, [{ type: 'alert', subtype: 'usr.test', text: 'Hello, world' }]);
});

test('notify raise text: a type no link carries (stream) notifies nobody', async () => {
  const { run, services } = setup();
  assert.equal(await run('notify raise text stream x y'), 'Raise text notification for stream/x as y\n');
  assert.deepEqual(services.notifications, []);
});

test('notify raise command: the notification text is the command output', async () => {
  const { run, services } = setup();
  assert.equal(await run('notify raise command info usr.stat stat'), 'Raise command notification for info/usr.stat as stat\n');
  assert.equal(services.notifications.length, 1);
  assert.equal(services.notifications[0]?.subtype, 'usr.stat');
  assert.match(services.notifications[0]?.text ?? '', /^Not charging\nSOC: 50\.0%\n/);
});

test('notify raise command with a command that waits notifies its output when it is done', async () => {
  const { run, services, console } = setup();
  console.root.add('slow', {
    title: 'answers later',
    run: async ({ out }) => {
      await new Promise((r) => setTimeout(r, 5));
      out.puts('late');
    },
  });
  assert.equal(await run('notify raise command info usr.s slow'), 'Raise command notification for info/usr.s as slow\n');
  assert.deepEqual(services.notifications, [{ type: 'info', subtype: 'usr.s', text: 'late\n' }]);
});

test('notify raise needs three arguments', async () => {
  const { run, services } = setup();
  assert.equal(await run('notify raise text info x'), 'Usage: notify raise text <type> <subtype> <message>\n');
  assert.deepEqual(services.notifications, []);
});

test('event raise: at once', async () => {
  const { run, services } = setup();
  assert.equal(await run('event raise usr.my.event'), 'Raising event: usr.my.event\n');
  assert.deepEqual(services.events, ['usr.my.event']);
});

test('event raise -d<ms>: answered at once, raised after the delay', async () => {
  const { run, services, console } = setup();
  assert.equal(await run('event raise -d20 usr.later'), 'Raising event in 20 ms: usr.later\n');
  assert.deepEqual(services.events, []);
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(services.events, ['usr.later']);
  console.dispose();
});

test('event raise -d<ms> is cancelled by dispose(); -d without a name gives the usage', async () => {
  const { run, services, console } = setup();
  await run('event raise -d20 usr.never');
  console.dispose();
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(services.events, []);
  assert.equal(await run('event raise -d5'), 'Usage: event raise [-d<delay_ms>] <event>\n');
});

test('echo: each argument on its own line; none gives an empty line', async () => {
  const { run } = setup();
  assert.equal(await run('echo one "two words" three'), 'one\ntwo words\nthree\n');
  assert.equal(await run('echo'), '\n');
});

test('enable without a module password enters secure mode; disable is silent; exit cannot', async () => {
  const { run } = setup();
  assert.equal(await run('enable'), 'Secure mode\n');
  assert.equal(await run('disable'), '');
  assert.equal(await run('exit'), 'This console cannot exit.\n');
});

test('enable with the right module password', async () => {
  const { run, services } = setup();
  services.config.set('password', 'module', 'pw');
  assert.equal(await run('enable pw'), 'Secure mode\n');
});
