/**
 * The admin commands leave an audit line (issue 17): one JSON line on their stderr (not a
 * terminal) with the action, who ran it (`by`: the system user; `sudoUser` too under sudo),
 * `via: cli` and what it was done to, never the password.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { spawn } from 'node:child_process';
import { spawnVts } from './spawn-helpers.js';

const auditOf = (stderr: string): Record<string, unknown>[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => typeof l.audit === 'string');

test('user, vehicle and notification-target commands each write an audit line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const data = ['--data-dir', join(dir, 'data')];
  const env = { SUDO_USER: 'alice' };
  const steps: [string[], Record<string, unknown>][] = [
    [['user', 'add', 'demo', '--password', 'secret-password-1', '--rights', '*'], { audit: 'user.add', user: 'demo', rights: '*' }],
    [['user', 'passwd', 'demo', '--password', 'secret-password-2'], { audit: 'user.password', user: 'demo' }],
    [['vehicle', 'add', 'DEMO1', '--owner', 'demo', '--password', 'CARPASS-SECRET'], { audit: 'vehicle.add', vehicle: 'DEMO1', owner: 'demo', type: 'CAR' }],
    [['notify', 'add', 'demo', 'ntfy', 'https://ntfy.example/topic'], { audit: 'notify.add', user: 'demo', target: 1, kind: 'ntfy', signed: false }],
    [['notify', 'remove', 'demo', '1'], { audit: 'notify.remove', user: 'demo', target: 1 }],
    [['vehicle', 'remove', 'DEMO1'], { audit: 'vehicle.remove', vehicle: 'DEMO1' }],
    [['user', 'remove', 'demo'], { audit: 'user.remove', user: 'demo' }],
  ];
  for (const [args, want] of steps) {
    const r = await spawnVts([...args, ...data], { env });
    assert.equal(r.code, 0, r.stderr);
    const lines = auditOf(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    const { level, by, via, msg, sudoUser, ...rest } = lines[0]!;
    assert.deepEqual({ level, by, via, msg, sudoUser }, { level: 30, by: userInfo().username, via: 'cli', msg: `audit: ${String(want.audit)}`, sudoUser: 'alice' });
    for (const [k, v] of Object.entries(want)) assert.deepEqual(rest[k], v, `${String(want.audit)}: ${k}`);
    for (const secret of ['secret-password', 'CARPASS-SECRET']) assert.ok(!r.stderr.includes(secret));
  }
  // a read changes nothing: no audit line
  assert.deepEqual(auditOf((await spawnVts(['user', 'list', ...data])).stderr), []);
});

test('on a terminal the answer holds no audit line (VTS_LOG_FORMAT=json brings it back)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-audit-tty-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const main = new URL('../../src/cli/main.ts', import.meta.url).pathname;
  // script(1) runs the command on a pseudo-terminal: stdout and stderr are a terminal, as for a person
  const onTerminal = (args: string, env: Record<string, string> = {}): Promise<string> => {
    const cmd = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(main)} ${args} --data-dir ${JSON.stringify(join(dir, 'data'))}`;
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_')));
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    return new Promise((resolve) => child.once('close', () => resolve(out)));
  };
  const plain = await onTerminal('user add demo --password secret-password-1');
  assert.match(plain, /user demo added/);
  assert.doesNotMatch(plain, /audit: |"audit"/);
  const asked = await onTerminal('user passwd demo --password secret-password-2', { VTS_LOG_FORMAT: 'json' });
  assert.match(asked, /"audit":"user\.password"/);
});
