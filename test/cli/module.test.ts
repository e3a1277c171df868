/**
 * `vts module` as a real child process: it starts the emulated modules, prints one JSON line with
 * their ids and ports, connects them to a real server as cars, serves `/api/execute`, refuses
 * incomplete options with a clear message, and stops on SIGTERM with exit 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually } from '../mp/helpers.js';
import { startTestServer } from '../support/server.js';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

function vtsModule(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'module', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => stdout.push(l));
  createInterface({ input: child.stderr }).on('line', (l) => stderr.push(l));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout, stderr, exit };
}

test('two modules connect as cars, serve /api/execute, and stop on SIGTERM', async (t) => {
  const srv = await startTestServer();
  const state = mkdtempSync(join(tmpdir(), 'vts-module-'));
  t.after(async () => {
    await srv.close();
    rmSync(state, { recursive: true, force: true });
  });
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EMU0001', owner, 'NETPASS');
  await srv.addVehicle('EMU0002', owner, 'NETPASS');

  const m = vtsModule([
    '--server', `127.0.0.1:${srv.mpPort}`, '--count', '2', '--id-prefix', 'emu', '--password', 'NETPASS',
    '--apikey', 'adminpw', '--links', 'v2,http', '--http-port', '0', '--state-dir', state, '--log-level', 'warn',
  ]);
  t.after(() => {
    if (m.child.exitCode === null) m.child.kill('SIGKILL');
  });
  const line = await eventually(() => m.stdout[0], `the started line (stderr: ${m.stderr.join('\n')})`, 30_000);
  const started = JSON.parse(line) as { event: string; modules: { id: string; http: number; ssh: null }[] };
  assert.equal(started.event, 'started');
  assert.deepEqual(started.modules.map((x) => x.id), ['EMU0001', 'EMU0002']);
  assert.ok(started.modules.every((x) => typeof x.http === 'number' && x.http > 0 && x.ssh === null));

  await eventually(() => (srv.server.hub.counts('EMU0002').net === 1 ? true : undefined), 'EMU0002 connected', 15_000);
  const r = await fetch(`http://127.0.0.1:${started.modules[0]!.http}/api/execute?apikey=adminpw&command=${encodeURIComponent('echo hello')}`);
  assert.equal(r.status, 200);
  assert.equal(await r.text(), 'hello\n');

  m.child.kill('SIGTERM');
  assert.equal(await m.exit, 0);
  await eventually(() => (srv.server.hub.counts('EMU0001').net === 0 ? true : undefined), 'EMU0001 gone');
});

test('missing options give a clear error and a non-zero exit', async () => {
  const noPassword = vtsModule(['--log-level', 'silent']);
  assert.notEqual(await noPassword.exit, 0);
  assert.match(noPassword.stderr.join('\n'), /--password/);
  const noKey = vtsModule(['--password', 'x', '--links', 'v2,http']);
  assert.notEqual(await noKey.exit, 0);
  assert.match(noKey.stderr.join('\n'), /--apikey/);
  const badLink = vtsModule(['--password', 'x', '--links', 'v2,telepathy']);
  assert.notEqual(await badLink.exit, 0);
  assert.match(badLink.stderr.join('\n'), /unknown link telepathy/);
});
