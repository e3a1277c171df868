/**
 * `npm start` hands signals to the server: a SIGTERM to npm (a container's stop, a service
 * manager, `kill` of a backgrounded `npm start`) stops vts gracefully instead of leaving it running
 * with its ports held (npm signals its shell, which would not pass it on: the start script execs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = new URL('../../', import.meta.url).pathname;

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

test('SIGTERM to npm start stops the server: it logs its shutdown and its ports are free', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-npm-start-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const npm = process.env.npm_execpath;
  const [cmd, pre] = npm ? [process.execPath, [npm]] : ['npm', []];
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_')));
  const child = spawn(
    cmd,
    [...pre, 'start', '--silent', '--', '--data-dir', join(dir, 'data'), '--bind', '127.0.0.1', '--mp-port', '0', '--http-port', '0', '--mqtt-port', 'off'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // 'close': npm has exited and every holder of its output pipes too, the server included
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      if (l.startsWith('{"event":"listening"')) resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${stderr}`)));
  });
  const ports = JSON.parse(line) as { mp: number; http: number };
  child.kill('SIGTERM');
  await closed;
  // the server, not only npm, has gone: it logged its shutdown and closed its listeners
  assert.match(stderr, /"msg":"shutting down"/, stderr);
  assert.match(stderr, /"msg":"stopped"/, stderr);
  assert.equal(await refused(ports.mp), true, 'the MP port is free');
  assert.equal(await refused(ports.http), true, 'the HTTP port is free');
});
