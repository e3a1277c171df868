/**
 * The CLI's own errors: a bad option or argument is its one-line error and one line that points
 * to the command's --help (not the whole help), for every command and subcommand; no command, an
 * unknown one, a group without its subcommand; an unexpected error is one line `vts: <message>`,
 * its stack only at log level debug.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { dataDir, vts } from './admin-helpers.js';
import { hasStack, spawnVts } from './spawn-helpers.js';

/** Every command of the program, with the words that call it (`['user', 'add']`). */
function commands(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  return [{ path, cmd }, ...cmd.commands.flatMap((c) => commands(c, [...path, c.name()]))];
}

const hint = (path: string[], what: string): string => `Run '${['vts', ...path].join(' ')} --help' for ${what}.\n`;

test('an unknown option: the error and one line pointing to --help, for every command and subcommand', async () => {
  const all = commands(buildProgram());
  assert.ok(all.length >= 12, 'vts, serve, user (4), vehicle (3), module, exec');
  for (const { path, cmd } of all) {
    // commander reports a missing required option first: give those
    const required = cmd.options.filter((o) => o.mandatory).flatMap((o) => [o.long!, 'value']);
    const r = await vts([...path, ...required, '--no-such-option']);
    const what = cmd.commands.length > 0 ? 'the commands' : 'the options';
    assert.deepEqual(r, { code: 1, stdout: '', stderr: `vts: unknown option '--no-such-option'\n${hint(path, what)}` }, path.join(' '));
  }
});

test('bad option values, missing and extra arguments: the error, the pointer, a non-zero exit', async (t) => {
  const dir = dataDir(t);
  const cases: [string[], string][] = [
    [['serve', '--mp-port', 'abc'], "vts: option '--mp-port <port>' argument 'abc' is invalid. not a port number: abc\n" + hint(['serve'], 'the options')],
    [['serve', '--database-timeout', '-1'], "vts: option '--database-timeout <seconds>' argument '-1' is invalid. not a number of seconds from 0 to 86400: -1\n" + hint(['serve'], 'the options')],
    [['serve', '--log-level', 'loud'], "vts: option '--log-level <level>' argument 'loud' is invalid. log level must be one of fatal, error, warn, info, debug, trace, silent\n" + hint(['serve'], 'the options')],
    [['user', 'add', 'bob'], "vts: required option '--password <password>' not specified\n" + hint(['user', 'add'], 'the options')],
    [['user', 'add', 'bob', '--password', 'password', '--rights'], "vts: option '--rights <list>' argument missing\n" + hint(['user', 'add'], 'the options')],
    [['user', 'add', 'a', 'b', '--password', 'password'], "vts: too many arguments for 'add'. Expected 1 argument but got 2.\n" + hint(['user', 'add'], 'the options')],
    [['vehicle', 'add', 'X1', '--password', 'p'], "vts: required option '--owner <name>' not specified\n" + hint(['vehicle', 'add'], 'the options')],
    [['vehicle', 'remove'], "vts: missing required argument 'id'\n" + hint(['vehicle', 'remove'], 'the options')],
    [['module', '--count', 'many'], "vts: option '--count <n>' argument 'many' is invalid. not a non-negative integer: many\n" + hint(['module'], 'the options')],
    [['exec'], "vts: missing required argument 'vehicle'\n" + hint(['exec'], 'the options')],
    [['bogus'], "vts: unknown command 'bogus'\n" + hint([], 'the commands')],
    [['user', 'bogus'], "vts: unknown command 'bogus'\n" + hint(['user'], 'the commands')],
  ];
  // none gets as far as the data dir; the test's own all the same, so that nothing could touch ./data
  const saved = process.env.VTS_DATA_DIR;
  process.env.VTS_DATA_DIR = dir;
  try {
    for (const [args, stderr] of cases) assert.deepEqual(await vts(args), { code: 1, stdout: '', stderr }, args.join(' '));
  } finally {
    if (saved === undefined) delete process.env.VTS_DATA_DIR;
    else process.env.VTS_DATA_DIR = saved;
  }
});

test('the real CLI: a bad value exits 1 with two lines; no command and a group without its subcommand show the help', async () => {
  const bad = await spawnVts(['serve', '--mp-port', 'abc']);
  assert.deepEqual(bad, {
    code: 1,
    stdout: '',
    stderr: "vts: option '--mp-port <port>' argument 'abc' is invalid. not a port number: abc\n" + hint(['serve'], 'the options'),
  });
  for (const [args, listed] of [[[], ['serve', 'user', 'vehicle', 'module', 'exec']], [['user'], ['add', 'passwd', 'list', 'remove']], [['vehicle'], ['add', 'list', 'remove']]] as const) {
    const r = await spawnVts([...args]);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^Usage: ${['vts', ...args].join(' ')} \\[options\\] \\[command\\]`));
    for (const name of listed) assert.match(r.stderr, new RegExp(`^  ${name}\\b`, 'm'), `${args.join(' ')} lists ${name}`);
    assert.ok(!hasStack(r.stderr));
  }
});

/** stdin that fails when read: an error no part of vts expects (not a VtsError). */
function brokenStdin(): Readable {
  return new Readable({
    read() {
      this.destroy(new Error('stdin broke\n  on two lines'));
    },
  });
}

test('an unexpected error: one line vts: <message>; with VTS_LOG_LEVEL=debug also its stack', async (t) => {
  const dir = dataDir(t);
  const args = ['user', 'add', 'bob', '--password', '-', '--data-dir', dir];
  const plain = await vts(args, brokenStdin());
  assert.deepEqual(plain, { code: 1, stdout: '', stderr: 'vts: stdin broke on two lines\n' });

  const saved = process.env.VTS_LOG_LEVEL;
  process.env.VTS_LOG_LEVEL = 'debug';
  try {
    const debug = await vts(args, brokenStdin());
    assert.equal(debug.code, 1);
    const [first, ...stack] = debug.stderr.split('\n');
    assert.equal(first, 'vts: stdin broke on two lines');
    assert.match(stack.join('\n'), /^Error: stdin broke\n {2}on two lines\n\s+at /);
  } finally {
    if (saved === undefined) delete process.env.VTS_LOG_LEVEL;
    else process.env.VTS_LOG_LEVEL = saved;
  }
});

test('a bad value in the --config file is one line that names the key and the file (not a silent exit)', async (t) => {
  const dir = dataDir(t);
  const file = join(dirname(dir), 'config.json');
  const cases: [string, string][] = [
    ['{"mp-port": "abc"}', `vts: invalid configuration: "mp-port" in ${file}: not a port number: abc (VTS_ERR_CONFIG)\n`],
    ['{"mp-port": 70000}', `vts: invalid configuration: "mp-port" in ${file}: not a port number: 70000 (VTS_ERR_CONFIG)\n`],
    ['{"mp-port": true}', `vts: invalid configuration: "mp-port" in ${file}: must be a string or a number, not true (VTS_ERR_CONFIG)\n`],
    ['{"timeout-car": null}', `vts: invalid configuration: "timeout-car" in ${file}: must be a string or a number, not null (VTS_ERR_CONFIG)\n`],
    ['{"mqtt-port": "of"}', `vts: invalid configuration: "mqtt-port" in ${file}: not a port number: of (VTS_ERR_CONFIG)\n`],
    ['{"js": "yes"}', `vts: invalid configuration: "js" in ${file}: must be true or false (VTS_ERR_CONFIG)\n`],
  ];
  for (const [json, stderr] of cases) {
    writeFileSync(file, json);
    const args = json.includes('"js"') ? ['exec', 'DEMO1', 'stat', '--config', file] : ['serve', '--config', file, '--data-dir', dir];
    assert.deepEqual(await vts(args), { code: 1, stdout: '', stderr }, json);
  }
});
