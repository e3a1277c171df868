/**
 * `vts serve` hardening as a real child process:
 * - stopped while commands wait for cars that never answer, SIGTERM answers every pending command
 *   at once (503, shutting down, in the error body of its route family: JSON for the command API,
 *   text for the custom API), ends the async job the same way, and the process then exits 0 (not
 *   1 after the shutdown deadline);
 * - the per-address connection cap and the login timeout from the environment and the config file;
 * - the open-files limit, raised to the hard limit, in the start-up log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { exitCode, FREE_PORTS, listening, serveProcess, type Running } from './serve-process.js';

/** `vts serve` of the data folder `dir` on free ports. */
const serve = (dir: string, opts: { shell?: string; args?: string[]; env?: Record<string, string> } = {}): Running =>
  serveProcess(['--data-dir', dir, ...(opts.args ?? []), ...FREE_PORTS], opts);

async function listeningPorts(r: Running): Promise<{ mp: number; http: number }> {
  return (await listening(r)) as { mp: number; http: number };
}

const logs = (r: Running): { msg?: string; level?: number; [k: string]: unknown }[] =>
  r.stderr.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg?: string });

test('SIGTERM with commands in flight: they are answered 503 at once and vts exits 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-shutdown-'));
  try {
    const store = await openStore(dir);
    const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
    await store.addVehicle({ id: 'CAR1', ownerId: owner.id, name: 'CAR1', carPassword: 'NETPASS1' });
    await store.addVehicle({ id: 'CAR2', ownerId: owner.id, name: 'CAR2', carPassword: 'NETPASS2' });
    await store.close();

    const r = serve(dir);
    const { mp, http } = await listeningPorts(r);
    // two cars that log in and never answer a command
    const car1 = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType: 'C', vehicleId: 'CAR1', scheme: 0, password: 'NETPASS1' });
    const car2 = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType: 'C', vehicleId: 'CAR2', scheme: 0, password: 'NETPASS2' });
    await Promise.all([car1.waitFor('Z'), car2.waitFor('Z')]);
    const base = `http://127.0.0.1:${http}`;
    const auth = 'username=demo&password=demopass';
    const post = (path: string, body: object): Promise<Response> =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // the command API, synchronous: running on car 1
    const sync = post(`/api/command/CAR1?${auth}`, { command: 'stat', timeout: 300 });
    assert.deepEqual(await car1.waitFor('C'), { code: 'C', data: '7,stat' });
    // an async job: queued behind it (202 once the command is in the queue)
    const started = await post(`/api/command/CAR1?async=1&${auth}`, { command: 'location', timeout: 300 });
    assert.equal(started.status, 202);
    const { job } = (await started.json()) as { job: string };
    // the custom API: running on car 2
    const custom = fetch(`${base}/api/ovms/cmd?fn.vehicleid=CAR2&fn.carpass=NETPASS2&fn.cmd=stat`);
    assert.deepEqual(await car2.waitFor('C'), { code: 'C', data: '7,stat' });

    r.child.kill('SIGTERM');
    const [syncRes, customRes] = await Promise.all([sync, custom]);
    assert.equal(syncRes.status, 503);
    assert.deepEqual(await syncRes.json(), { error: 'VTS_ERR_SHUTTING_DOWN', message: 'the server is shutting down: the command was not completed' });
    assert.equal(customRes.status, 503);
    assert.match(customRes.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await customRes.text(), 'the server is shutting down: the command was not completed\n');

    assert.equal(await exitCode(r), 0);
    const lines = logs(r);
    assert.ok(!lines.some((l) => l.msg === 'shutdown took too long: exiting'), 'no deadline exit');
    assert.ok(lines.some((l) => l.msg === 'stopped'));
    await Promise.all([car1.closed, car2.closed]);

    // the async job ended the same way: every command is audited as cut short by the shutdown
    const after = await openStore(dir);
    const audit = [...(await after.listCommandAudit('CAR1', 10)), ...(await after.listCommandAudit('CAR2', 10))];
    await after.close();
    assert.deepEqual(audit.map((e) => [e.vehicleId, e.via, e.result]).sort(), [
      ['CAR1', 'api', 'shutting-down'],
      ['CAR1', 'api', 'shutting-down'],
      ['CAR2', 'custom-api', 'shutting-down'],
    ]);
    assert.ok(job);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the open-files limit: raised to the hard limit at start and said in the log', async (t) => {
  const probe = spawn('sh', ['-c', 'ulimit -Sn 256 && ulimit -Sn']);
  let out = '';
  probe.stdout.on('data', (d: Buffer) => (out += d.toString()));
  if ((await new Promise((r) => probe.once('close', r))) !== 0 || out.trim() !== '256') {
    t.skip('sh cannot lower the soft open-files limit here');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'vts-fdlimit-'));
  try {
    // a soft limit far below the hard limit, as many systems start services
    const r = serve(dir, { shell: 'ulimit -Sn 256' });
    await listeningPorts(r);
    r.child.kill('SIGTERM');
    assert.equal(await exitCode(r), 0);
    const line = logs(r).find((l) => 'fdLimit' in l);
    assert.ok(line, `a log line with the limit: ${r.stderr.join('\n')}`);
    assert.ok(typeof line.fdLimit === 'number' && line.fdLimit > 256, `raised: ${JSON.stringify(line)}`);
    assert.equal(line.fdLimit, line.fdHardLimit);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the connection cap from the environment and the login timeout from the config file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-cap-'));
  try {
    const config = join(dir, 'vts.json');
    writeFileSync(config, JSON.stringify({ 'timeout-login': 1 }));
    const r = serve(dir, { args: ['--config', config], env: { VTS_MAX_CONNECTIONS_PER_ADDRESS: '1' } });
    const { mp, http } = await listeningPorts(r);
    const raw = (port: number) => {
      const s = netConnect({ host: '127.0.0.1', port });
      s.on('error', () => undefined);
      return { s, closed: new Promise<void>((resolve) => s.once('close', () => resolve())) };
    };
    const first = raw(mp);
    await new Promise<void>((resolve) => first.s.once('connect', () => resolve()));
    // the second connection of the address, on another listener, is closed at once ...
    let second = raw(http);
    await second.closed;
    // ... until the first is closed for not logging in within 1 s; then there is room again
    await first.closed;
    for (let k = 0; ; k++) {
      second = raw(http);
      const answered = await new Promise<boolean>((resolve) => {
        second.s.once('connect', () => second.s.write('GET /api/vehicles HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
        second.s.once('data', () => resolve(true));
        second.s.once('close', () => resolve(false));
      });
      second.s.destroy();
      if (answered) break;
      // the server may count the first socket until its close has run there too
      assert.ok(k < 100, 'the place of the closed connection is free again');
      await new Promise((res) => setTimeout(res, 50));
    }
    r.child.kill('SIGTERM');
    assert.equal(await exitCode(r), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the login limits and the password checks from the flags, the environment and the config file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-limits-'));
  try {
    const store = await openStore(dir, { create: true });
    await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
    await store.close();
    const config = join(dir, 'vts.json');
    writeFileSync(config, JSON.stringify({ 'login-limit-account': '50/5' }));
    const r = serve(dir, { args: ['--config', config, '--login-limit-pair', '2/1', '--password-checks', '1'], env: { VTS_LOGIN_LIMIT_ADDRESS: '100/30' } });
    const { http } = await listeningPorts(r);
    const statuses: number[] = [];
    for (let k = 0; k < 3; k++) {
      const res = await fetch(`http://127.0.0.1:${http}/api/vehicles?username=demo&password=wrong`);
      statuses.push(res.status);
      assert.equal(res.headers.get('retry-after') !== null, res.status === 429);
    }
    assert.deepEqual(statuses, [401, 401, 429], 'the pair limit of the flag: two attempts, then refused');
    r.child.kill('SIGTERM');
    assert.equal(await exitCode(r), 0);

    const bad = serve(dir, { args: ['--login-limit-pair', 'ten'] });
    assert.notEqual(await exitCode(bad), 0);
    assert.match(bad.stderr.join('\n'), /--login-limit-pair.*e\.g\. 10\/2/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
