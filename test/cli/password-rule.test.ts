/**
 * One password rule for the CLI and the dashboard's server side: `vts user add|passwd` and
 * `POST /api/password` of a real `vts serve` refuse 7 characters and take 8; an account whose
 * short password was stored before the rule still logs in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import { dataDir, vts } from './admin-helpers.js';
import { MAIN } from './spawn-helpers.js';

const TOO_SHORT = 'vts: invalid input: the password must have at least 8 characters (VTS_ERR_INVALID_INPUT)\n';

test('vts user add and passwd: 7 characters are refused, 8 are taken', async (t) => {
  const dir = dataDir(t);
  assert.deepEqual(await vts(['user', 'add', 'demo', '--password', '1234567', '--data-dir', dir]), { code: 1, stdout: '', stderr: TOO_SHORT });
  assert.equal((await vts(['user', 'add', 'demo', '--password', '12345678', '--data-dir', dir])).code, 0);
  assert.deepEqual(await vts(['user', 'passwd', 'demo', '--password', '-', '--data-dir', dir], 'abcdefg\n'), { code: 1, stdout: '', stderr: TOO_SHORT });
  assert.deepEqual(await vts(['user', 'passwd', 'demo', '--password', '-', '--data-dir', dir], 'abcdefgh\n'), {
    code: 0,
    stdout: 'password of user demo changed\n',
    stderr: '',
  });
});

test('the server: a short password stored before still logs in; POST /api/password applies the rule', async (t) => {
  const dir = dataDir(t);
  const store = await openStore(dir);
  await store.addOwner('old', await hashPassword('short', { N: 1024, r: 8, p: 1 }), '*');
  await store.close();

  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--bind', '127.0.0.1', '--data-dir', dir, '--mp-port', '0', '--http-port', '0', '--mqtt-port', 'off'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_'))),
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  t.after(() => child.kill('SIGKILL'));
  child.stderr.resume();
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  const { http } = JSON.parse(line) as { http: number };
  const base = `http://127.0.0.1:${http}`;

  assert.equal((await fetch(`${base}/api/vehicles?username=old&password=short`)).status, 200, 'the old short password logs in');
  const change = (next: string): Promise<Response> =>
    fetch(`${base}/api/password?username=old&password=short`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ current: 'short', new: next }),
    });
  const refused = await change('1234567');
  assert.equal(refused.status, 400);
  assert.deepEqual(await refused.json(), { error: 'VTS_ERR_INVALID_INPUT', message: 'the password must have at least 8 characters' });
  assert.equal((await change('12345678')).status, 204);
  assert.equal((await fetch(`${base}/api/vehicles?username=old&password=12345678`)).status, 200);

  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});
