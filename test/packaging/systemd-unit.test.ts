/**
 * packaging/systemd/vts.service: the settings a hardened vts service needs, and `systemd-analyze
 * verify` on it (a copy whose ExecStart runs this machine's node on this checkout, as verify
 * checks that the program exists). verify reports a misspelt key or a bad value as a warning and
 * still exits 0, so any line it prints fails the test; a broken copy shows that it would. Without
 * systemd-analyze the verify tests are skipped with one line (a failure under
 * VTS_TEST_REQUIRE_SERVICES=1); the settings are checked anyway. The environment file example
 * holds only comments and KEY=value lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, parseUnit, unitValue } from './parsers.js';
import { needs, requireServices, type ServiceCheck } from '../support/services.js';

const UNIT_FILE = join(ROOT, 'packaging/systemd/vts.service');
const text = readFileSync(UNIT_FILE, 'utf8');
const unit = parseUnit(text);
const service = (key: string): string | undefined => unitValue(unit, 'Service', key);

const systemdAnalyze: ServiceCheck = async () => {
  const probe = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
  return probe.status === 0 ? null : 'needs systemd-analyze to verify the systemd unit: apt-get install systemd';
};

/**
 * What `systemd-analyze verify` says about a unit text: [] when it accepts it without a word.
 * The install paths (/usr/bin/node, /opt/vts) become this machine's node and this checkout.
 */
function verify(unitText: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'vts-unit-'));
  try {
    const file = join(dir, 'vts.service');
    const local = unitText
      .replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `)
      .replace(/\/opt\/vts(?=\/|$|\s)/gm, ROOT.replace(/\/$/, ''));
    writeFileSync(file, local);
    const run = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 30_000 });
    const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => l.trim() !== '');
    if (run.status !== 0) lines.push(`exit status ${String(run.status)}`);
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the unit runs vts serve as the user vts with its data dir in the state dir', () => {
  assert.equal(service('Type'), 'simple', 'vts does not speak sd_notify');
  assert.equal(service('User'), 'vts');
  const exec = service('ExecStart')!.split(/\s+/);
  assert.deepEqual(exec.slice(0, 3), ['/usr/bin/node', '/opt/vts/dist/cli/main.js', 'serve']);
  const stateDir = `/var/lib/${service('StateDirectory')}`;
  assert.equal(exec[exec.indexOf('--data-dir') + 1], stateDir, `--data-dir ${stateDir} (StateDirectory=)`);
  assert.ok(unit.get('Service')!.get('ReadWritePaths')!.join(' ').split(/\s+/).includes(stateDir), `ReadWritePaths= ${stateDir}`);
  assert.equal(service('Restart'), 'on-failure');
  assert.equal(service('KillSignal'), 'SIGTERM');
  assert.ok(service('TimeoutStopSec'), 'TimeoutStopSec= is set');
  assert.equal(service('ExecReload'), '/bin/kill -HUP $MAINPID', 'reload = SIGHUP (the server reads its TLS certificate again)');
  assert.ok(Number(service('LimitNOFILE')) >= 65536, 'LimitNOFILE= 65536 or more');
  assert.equal(unitValue(unit, 'Install', 'WantedBy'), 'multi-user.target');
});

test('the unit has the hardening options, and not MemoryDenyWriteExecute (V8 JIT)', () => {
  const expected: Record<string, string> = {
    NoNewPrivileges: 'yes',
    ProtectSystem: 'strict',
    ProtectHome: 'yes',
    PrivateTmp: 'yes',
    PrivateDevices: 'yes',
    ProtectKernelTunables: 'yes',
    ProtectKernelModules: 'yes',
    ProtectKernelLogs: 'yes',
    ProtectControlGroups: 'yes',
    RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
    RestrictNamespaces: 'yes',
    LockPersonality: 'yes',
    SystemCallArchitectures: 'native',
    CapabilityBoundingSet: '',
  };
  for (const [key, value] of Object.entries(expected)) assert.equal(service(key), value, `${key}=${value}`);
  assert.equal(service('MemoryDenyWriteExecute'), undefined, 'MemoryDenyWriteExecute= is not set: node needs W+X memory');
  assert.equal(service('AmbientCapabilities'), undefined, 'no capability is given (the default ports are above 1024)');
});

test('systemd-analyze verify accepts the unit', { skip: await needs(systemdAnalyze) }, async () => {
  await requireServices(systemdAnalyze);
  assert.deepEqual(verify(text), []);
});

test('systemd-analyze verify would catch a broken unit: a misspelt key, a bad value, a missing program', { skip: await needs(systemdAnalyze) }, async () => {
  await requireServices(systemdAnalyze);
  const broken = [
    text.replace(/^ProtectSystem=strict$/m, 'ProtectSystm=strict'),
    text.replace(/^Restart=on-failure$/m, 'Restart=sometimes'),
    text.replace(/^ExecStart=\/usr\/bin\/node /m, 'ExecStart=/nonexistent/node '),
  ];
  for (const b of broken) {
    assert.notEqual(b, text, 'the test changed the unit');
    assert.notDeepEqual(verify(b), [], 'verify reports the broken copy');
  }
});

test('vts.env holds only comments and KEY=value lines', () => {
  const lines = readFileSync(join(ROOT, 'packaging/systemd/vts.env'), 'utf8').split('\n');
  for (const line of lines) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    assert.match(line, /^[A-Z_][A-Z0-9_]*=/, `an EnvironmentFile line: ${line}`);
  }
  assert.equal(service('EnvironmentFile'), '-/etc/vts/vts.env', 'the unit reads it when it is there');
});
