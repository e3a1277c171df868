/**
 * The console's generic command handling (docs/protocol/module-console.md §2, docs/protocol/commands.md §2.3):
 * unique-prefix abbreviations, `Unrecognised command` (with the parent's usage below the root),
 * `Subcommand required`, usage lines for wrong argument counts and a trailing `?`, the `?`
 * listings, quoting errors, empty lines, `help`, and several lines in one payload.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command, dispatch, Output } from '../../src/module/console/command.js';
import { setup } from './console-fakes.js';

test('an empty payload or a blank line gives no output', async () => {
  const { run } = setup();
  assert.equal(await run(''), '');
  assert.equal(await run('   '), '');
  assert.equal(await run('\n\n'), '');
});

test('unknown root command: one line, no usage', async () => {
  const { run } = setup();
  assert.equal(await run('frobnicate'), 'Unrecognised command\n');
});

test('unknown subcommand: the parent usage follows (charge has no status)', async () => {
  const { run } = setup();
  assert.equal(await run('charge status'), 'Unrecognised command\nUsage: charge cooldown|current|mode|start|stop\n');
  assert.equal(await run('charge mode eco'), 'Unrecognised command\nUsage: charge mode performance|range|standard|storage\n');
});

test('a group without handler and without subcommand: Subcommand required and the usage', async () => {
  const { run } = setup();
  assert.equal(await run('charge'), 'Subcommand required\nUsage: charge cooldown|current|mode|start|stop\n');
  assert.equal(await run('config'), 'Subcommand required\nUsage: config get|list|rm|set\n');
});

test('unique prefixes select commands at every level; ambiguous prefixes do not', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('cha sta'), 'Charge has been started\n');
  assert.equal(vehicle.metrics.get('v.c.charging'), true);
  assert.equal(await run('met g v.b.soc'), '50%\n');
  // `charge st` could be start or stop
  assert.equal(await run('charge st'), 'Unrecognised command\nUsage: charge cooldown|current|mode|start|stop\n');
  // `s` could be script, server, sleep or stat
  assert.equal(await run('s'), 'Unrecognised command\n');
});

test('an exact name wins over longer names it is a prefix of', () => {
  const root = Command.root();
  root.add('log', { title: 'short', run: ({ out }) => out.puts('log') });
  root.add('logger', { title: 'long', run: ({ out }) => out.puts('logger') });
  const out = new Output();
  dispatch(root, ['log'], out);
  dispatch(root, ['logg'], out);
  assert.equal(out.text(), 'log\nlogger\n');
});

test('wrong argument counts give the usage line', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('lock'), 'Usage: lock <pin>\n');
  assert.equal(await run('lock 1 2'), 'Usage: lock <pin>\n');
  assert.equal(await run('metrics get'), 'Usage: metrics get <metric> [<unit>]\n');
  assert.equal(await run('homelink 1 2 3'), 'Usage: homelink <homelink> [<duration=1000ms>]\n');
  assert.equal(vehicle.calls.length, 0, 'no action ran');
});

test('a trailing ? on a leaf gives its usage instead of running it; an empty template leaves a space', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('lock ?'), 'Usage: lock <pin>\n');
  assert.equal(await run('config set a b ?'), 'Usage: config set <param> <instance> <value>\n');
  assert.equal(await run('wakeup ?'), 'Usage: wakeup \n');
  assert.equal(vehicle.calls.length, 0);
});

test('<group> ?: the usage line, then each child padded to 20 columns and its title', async () => {
  const { run } = setup();
  assert.equal(
    await run('charge ?'),
    'Usage: charge cooldown|current|mode|start|stop\n' +
      'cooldown             Start a vehicle cooldown\n' +
      'current              Limit charge current\n' +
      'mode                 Set vehicle charge mode\n' +
      'start                Start a vehicle charge\n' +
      'stop                 Stop a vehicle charge\n',
  );
  assert.equal(
    await run('climatecontrol ?'),
    'Usage: climatecontrol off|on\noff                  Deactivate Climate Control\non                   Activate Climate Control\n',
  );
});

test('a group with its own handler lists its children with a bracketed usage', async () => {
  const { run } = setup();
  assert.equal(await run('stat ?'), 'Usage: stat [trip]\ntrip                 Show trip status\n');
});

test('names longer than 20 characters are cut in listings', () => {
  const root = Command.root();
  const g = root.add('g', { title: 'group' });
  g.add('abcdefghijklmnopqrstuvwxyz', { title: 'long one' });
  const out = new Output();
  dispatch(root, ['g', '?'], out);
  assert.equal(out.text(), 'Usage: g abcdefghijklmnopqrstuvwxyz\nabcdefghijklmnopqrst long one\n');
});

test('root ?: every root command in byte-wise order after a usage line listing them', async () => {
  const { run } = setup();
  const lines = (await run('?')).split('\n');
  assert.equal(lines.pop(), '', 'the last line is terminated');
  const [usage, ...list] = lines;
  const names = list.map((l) => l.slice(0, 20).trimEnd());
  assert.deepEqual(names, [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  assert.equal(usage, `Usage: ${names.join('|')}`);
  for (const name of ['charge', 'config', 'echo', 'help', 'lock', 'metrics', 'run', 'script', 'server', 'sleep', 'stat', 'wakeup']) {
    assert.ok(names.includes(name), name);
  }
  assert.ok(list.includes(`${'stat'.padEnd(20)} Show vehicle status`));
  assert.ok(list.includes(`${'metrics'.padEnd(20)} METRICS framework`));
});

test('bad quoting: one error line and nothing runs', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('lock "1234'), 'ERROR:too many tokens or invalid quoting\n');
  assert.equal(await run('lock "12"34'), 'ERROR:too many tokens or invalid quoting\n');
  assert.equal(vehicle.calls.length, 0);
});

test('too many tokens: the same error', async () => {
  const { run } = setup();
  assert.equal(await run('echo ' + 'x '.repeat(130)), 'ERROR:too many tokens or invalid quoting\n');
});

test('help prints six lines of hints', async () => {
  const { run } = setup();
  const out = await run('help');
  assert.equal(out.split('\n').length, 7);
  assert.match(out, /\?/);
  assert.match(out, /enable/);
});

test('a payload of several lines runs each in turn and concatenates the outputs', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('lock 1\nbogus\necho done\n'), 'Vehicle locked\nUnrecognised command\ndone\n');
  assert.equal(vehicle.metrics.get('v.e.locked'), true);
});

test('an exception in a handler becomes an error line, never a rejection', async () => {
  const { run, console } = setup();
  console.root.add('boom', {
    title: 'fails',
    run: () => {
      throw new Error('kaput');
    },
  });
  assert.equal(await run('boom\necho after'), 'ERROR: internal error: kaput\nafter\n');
});
