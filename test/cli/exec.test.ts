/**
 * `vts exec` as a real child process, against real things: a vts server in this process, an
 * in-process aedes MQTT broker, and an emulated module connected to both, serving its own
 * `/api/execute` and SSH server. Every path (server, mp, mqtt, http, ssh) runs a shell command;
 * JavaScript and MP commands on some; failures (wrong secrets, a vehicle that is not connected,
 * invalid input) exit 1 with one `vts: …` line and never show a secret.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Aedes, type AuthenticateError } from 'aedes';
import { connectAsync } from 'mqtt';
import ssh2 from 'ssh2';
import { hashApiToken, newApiToken } from '../../src/auth/api-token.js';
import { fingerprintOf } from '../../src/cli/exec/ssh.js';
import { createLogger } from '../../src/util/log.js';
import { generateEd25519 } from '../../src/module/links/ssh-keys.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { vtsWords } from '../support/vts-command.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

// the secrets of this test: none may ever show up in an output
const USER_PASSWORD = 'demo-Pass-1';
const CAR_PASSWORD = 'NET-Pass-2';
const ADMIN_PASSWORD = 'admin-Pass-3';
const MQTT_PASSWORD = 'mqtt-Pass-4';
const WRONG = 'wrong-Pass-5';
const TOKEN = newApiToken();
const READ_TOKEN = newApiToken();
const SECRETS = [USER_PASSWORD, CAR_PASSWORD, ADMIN_PASSWORD, MQTT_PASSWORD, WRONG, TOKEN, READ_TOKEN];

interface Setup {
  srv: TestServer;
  broker: { port: number; close(): Promise<void> };
  mod: EmulatedModule;
  dir: string;
  key: string;
  otherKey: string;
  fingerprint: string;
}
let s: Setup;

async function startAedes(): Promise<Setup['broker']> {
  const aedes = await Aedes.createBroker();
  aedes.authenticate = (_client, username, password, done) => {
    if (username === 'demo' && password?.toString() === MQTT_PASSWORD) return done(null, true);
    done(Object.assign(new Error('refused'), { returnCode: 4 }) as unknown as AuthenticateError, false);
  };
  const server: Server = createServer((socket) => aedes.handle(socket));
  const sockets = new Set<Socket>();
  server.on('connection', (c) => {
    sockets.add(c);
    c.on('close', () => sockets.delete(c));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return {
    port: address.port,
    close: async () => {
      for (const c of sockets) c.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}

before(async () => {
  const srv = await startTestServer();
  const owner = await srv.addUser('demo', USER_PASSWORD);
  await srv.addVehicle('TESTCAR', owner, CAR_PASSWORD);
  await srv.addVehicle('OFFCAR', owner, CAR_PASSWORD);
  await srv.server.store.addApiToken({
    ownerId: owner,
    tokenHash: hashApiToken(TOKEN),
    application: 'test',
    purpose: 'exec',
    permit: 'command',
    created: Math.floor(Date.now() / 1000),
    lastUsed: null,
  });
  await srv.server.store.addApiToken({
    ownerId: owner,
    tokenHash: hashApiToken(READ_TOKEN),
    application: 'test',
    purpose: 'read',
    permit: 'auth',
    created: Math.floor(Date.now() / 1000),
    lastUsed: null,
  });
  const broker = await startAedes();

  const dir = mkdtempSync(join(tmpdir(), 'vts-exec-'));
  const pair = generateEd25519();
  const other = generateEd25519();
  const key = join(dir, 'id_ed25519');
  const otherKey = join(dir, 'other_ed25519');
  writeFileSync(key, pair.private, { mode: 0o600 });
  writeFileSync(otherKey, other.private, { mode: 0o600 });
  writeFileSync(join(dir, 'authorized_keys'), pair.public + '\n');

  const mod = new EmulatedModule({
    id: 'TESTCAR',
    seed: 3,
    carPassword: CAR_PASSWORD,
    adminPassword: ADMIN_PASSWORD,
    server: { host: '127.0.0.1', port: srv.mpPort },
    mqtt: { url: `mqtt://127.0.0.1:${broker.port}`, username: 'demo', password: MQTT_PASSWORD },
    http: { host: '127.0.0.1', port: 0 },
    ssh: { host: '127.0.0.1', port: 0, authorizedKeysFile: join(dir, 'authorized_keys'), hostKeyFile: join(dir, 'host_key') },
    log: quiet,
  });
  await mod.start();
  const hostKey = ssh2.utils.parseKey(readFileSync(join(dir, 'host_key'), 'utf8'));
  assert.ok(!(hostKey instanceof Error));
  const fingerprint = fingerprintOf((Array.isArray(hostKey) ? hostKey[0]! : hostKey).getPublicSSH());
  s = { srv, broker, mod, dir, key, otherKey, fingerprint };

  await eventually(() => (srv.server.hub.counts('TESTCAR').net === 1 ? true : undefined), 'the module on the v2 server');
  // the module's retained presence, and a vehicle whose module has gone (its last will)
  const probe = await connectAsync(`mqtt://127.0.0.1:${broker.port}`, { username: 'demo', password: MQTT_PASSWORD, reconnectPeriod: 0 });
  let present = false;
  probe.on('message', (_t, payload) => {
    present = payload.toString() === 'yes';
  });
  await probe.subscribeAsync('ovms/demo/TESTCAR/metric/s/v3/connected');
  await eventually(() => (present ? true : undefined), 'the module on the MQTT broker', 15_000);
  await probe.publishAsync('ovms/demo/GONE/metric/s/v3/connected', 'no', { retain: true, qos: 1 });
  await probe.endAsync();
});

after(async () => {
  await s?.mod.stop();
  await s?.broker.close();
  await s?.srv.close();
  if (s) rmSync(s.dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `vts exec …` as a child process, with no VTS_* variable of this environment. */
function vts(args: string[], input?: string): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_')));
  const [node, ...words] = vtsWords();
  const child = spawn(node!, [...words, 'exec', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(input ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const server = (): string[] => ['--server', `http://127.0.0.1:${s.srv.server.ports.http}`, '--user', 'demo', '--password', USER_PASSWORD];
const mp = (): string[] => ['--via', 'mp', '--mp', `127.0.0.1:${s.srv.mpPort}`, '--password', CAR_PASSWORD];
const mqtt = (): string[] => ['--via', 'mqtt', '--mqtt', `mqtt://127.0.0.1:${s.broker.port}`, '--user', 'demo', '--password', MQTT_PASSWORD];
const http = (): string[] => ['--via', 'http', '--module', `http://127.0.0.1:${s.mod.ports.http}`, '--apikey', ADMIN_PASSWORD];
const ssh = (): string[] => ['--via', 'ssh', '--module', `127.0.0.1:${s.mod.ports.ssh}`, '--identity', s.key, '--ssh-fingerprint', s.fingerprint];

function assertOk(r: Run, stdout: string, what: string): void {
  assert.equal(r.stderr, '', `${what}: stderr`);
  assert.equal(r.stdout, stdout, `${what}: stdout`);
  assert.equal(r.code, 0, `${what}: exit code`);
}

/** Exit 1, nothing on stdout, one `vts: …` line on stderr matching `pattern`, no secret anywhere. */
function assertFails(r: Run, pattern: RegExp, what: string): void {
  assert.equal(r.code, 1, `${what}: exit code (stderr ${r.stderr})`);
  assert.equal(r.stdout, '', `${what}: stdout`);
  assert.match(r.stderr, /^vts: [^\n]+\n$/, `${what}: one line`);
  assert.match(r.stderr, pattern, what);
  for (const secret of SECRETS) assert.ok(!(r.stdout + r.stderr).includes(secret), `${what}: a secret in the output`);
}

test('every path runs a shell command: echo hi prints hi and exits 0', async () => {
  const runs = await Promise.all([
    vts(['TESTCAR', 'echo', 'hi', ...server()]),
    vts(['testcar', 'echo', 'hi', ...mp()]),
    vts(['TESTCAR', 'echo', 'hi', ...mqtt()]),
    vts(['TESTCAR', 'echo', 'hi', ...http()]),
    vts(['TESTCAR', 'echo', 'hi', ...ssh()]),
  ]);
  ['server', 'mp', 'mqtt', 'http', 'ssh'].forEach((via, k) => assertOk(runs[k]!, 'hi\n', via));
  for (const r of runs) for (const secret of SECRETS) assert.ok(!(r.stdout + r.stderr).includes(secret));
});

test('a word with a space arrives as one word on the module (quoted for its console)', async () => {
  const r = await vts(['TESTCAR', 'echo', 'Charging stopped', "it's", '"quoted"', ...server()]);
  assertOk(r, 'Charging stopped\nit\'s\n"quoted"\n', 'server');
});

test('JavaScript (--js) on every path; the output ends with a line end', async () => {
  const js = 'print(20 + 22)';
  const runs = await Promise.all([server(), http(), mp(), mqtt(), ssh()].map((args) => vts(['TESTCAR', '--js', js, ...args])));
  ['server', 'http', 'mp', 'mqtt', 'ssh'].forEach((via, k) => assertOk(runs[k]!, '42\n', `${via} --js`));
});

test('JavaScript with quotes, backslashes, semicolons, non-ASCII and line breaks runs unchanged on every path', async () => {
  // the README's example, and one with everything the console's quoting could trip over
  const hard = [
    '// a comment, then both quotes',
    `var t = "double \\"q\\" and 'single'; back\\\\slash";`,
    'print(t + " Grüße ✓;\\n");',
    "print(typeof OvmsMetrics.Value('v.b.soc'))",
  ].join('\n');
  const paths = [server(), http(), mp(), mqtt(), ssh()];
  const runs = await Promise.all([
    ...paths.map((args) => vts(['TESTCAR', '--js', 'print(OvmsMetrics.Value("v.b.soc"))', ...args])),
    ...paths.map((args) => vts(['TESTCAR', '--js', hard, ...args])),
  ]);
  ['server', 'http', 'mp', 'mqtt', 'ssh'].forEach((via, k) => {
    assert.match(runs[k]!.stdout, /^\d+(\.\d+)?\n$/, `${via}: the README example prints the SOC (${runs[k]!.stdout}${runs[k]!.stderr})`);
    assertOk(runs[k]!, runs[k]!.stdout, `${via}: README example`);
    assertOk(runs[k + paths.length]!, `double "q" and 'single'; back\\slash Grüße ✓;\nnumber\n`, `${via}: the hard script`);
  });
});

test('MP commands, an API token, MP scheme 1, and a secret from stdin', async () => {
  const [features, token, scheme1, stdin] = await Promise.all([
    vts(['TESTCAR', '--mp-code', '1', ...mp()]),
    vts(['TESTCAR', 'echo', 'a', 'b', '--server', `http://127.0.0.1:${s.srv.server.ports.http}`, '--user', 'demo', '--token', TOKEN]),
    vts(['TESTCAR', 'echo', 'one', ...mp(), '--user', 'demo', '--password', USER_PASSWORD]),
    vts(['TESTCAR', '--via', 'http', '--module', `http://127.0.0.1:${s.mod.ports.http}`, '--apikey', '-', '--', 'echo', '-n'], ADMIN_PASSWORD + '\n'),
  ]);
  const lines = features.stdout.trimEnd().split('\n');
  assert.equal(features.code, 0, features.stderr);
  assert.equal(lines.length, 32, 'MP command 1 answers 32 records, one line each');
  assert.equal(lines[31], '31,32,0');
  assertOk(token, 'a\nb\n', 'server with a token (echo prints each word on a line)');
  assertOk(scheme1, 'one\n', 'mp scheme 1');
  assertOk(stdin, '-n\n', 'the apikey from stdin, a dash word after --');
});

/** A port nobody listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

test('failures on the server and mp paths exit 1 with one clear line and never show a secret', async () => {
  const base = `http://127.0.0.1:${s.srv.server.ports.http}`;
  const cases: [string, string[], RegExp][] = [
    ['server: wrong password', ['TESTCAR', 'stat', '--server', base, '--user', 'demo', '--password', WRONG], /refused the login of user demo/],
    ['server: not connected', ['OFFCAR', 'stat', ...server()], /vehicle not connected: OFFCAR: is its module running, and connected to this server\? \(see the module's log\) \(VTS_ERR_NOT_CONNECTED\)/],
    ['mp: wrong car password', ['TESTCAR', 'stat', '--via', 'mp', '--mp', `127.0.0.1:${s.srv.mpPort}`, '--password', WRONG], /refused the login: wrong vehicle id or car password/],
    ['mp: not connected', ['OFFCAR', 'stat', ...mp()], /vehicle not connected: OFFCAR: is its module running/],
  ];
  const runs = await Promise.all(cases.map(([, args]) => vts(args)));
  cases.forEach(([what, , pattern], k) => assertFails(runs[k]!, pattern, what));
});

test('failures on the mqtt, http and ssh paths exit 1 with one clear line and never show a secret', async () => {
  const cases: [string, string[], RegExp][] = [
    ['mqtt: wrong password', ['TESTCAR', 'stat', '--via', 'mqtt', '--mqtt', `mqtt://127.0.0.1:${s.broker.port}`, '--user', 'demo', '--password', WRONG], /refused the login of demo: bad user name or password/],
    ['mqtt: module gone', ['GONE', 'stat', ...mqtt()], /vehicle not connected: GONE/],
    ['http: wrong apikey', ['TESTCAR', 'stat', '--via', 'http', '--module', `http://127.0.0.1:${s.mod.ports.http}`, '--apikey', WRONG], /refused the request \(403\): wrong --apikey/],
    ['ssh: wrong key', ['TESTCAR', 'stat', ...ssh().slice(0, 4), '--identity', s.otherKey], /refused the key .*other_ed25519 for user admin/],
  ];
  const runs = await Promise.all(cases.map(([, args]) => vts(args)));
  cases.forEach(([what, , pattern], k) => assertFails(runs[k]!, pattern, what));
});

test('invalid input, an unreachable module and a wrong host key are refused with one clear line', async () => {
  const base = `http://127.0.0.1:${s.srv.server.ports.http}`;
  const port = await closedPort();
  const cases: [string, string[], RegExp][] = [
    ['server: not the user\'s vehicle', ['NOSUCH', 'stat', ...server()], /NOSUCH is not one of user demo's vehicles \(403 Forbidden\): check the vehicle id/],
    ['server: a token without the right command', ['TESTCAR', 'stat', '--server', base, '--user', 'demo', '--token', READ_TOKEN], /this API token may not run commands: its permit needs the right command .*permit=command/],
    ['ssh: no identity file', ['TESTCAR', 'stat', ...ssh().slice(0, 4), '--identity', '/nonexistent/id_ed25519'], /the identity file \/nonexistent\/id_ed25519 does not exist: give your SSH private key with --identity/],
    ['no user', ['TESTCAR', 'stat', '--server', base, '--password', USER_PASSWORD], /--user is required with --via server/],
    ['server: host:port, not a URL', ['TESTCAR', 'stat', ...server().slice(2), '--server', `127.0.0.1:${s.srv.mpPort}`], /--server must be the vts server's URL, e\.g\. http:\/\/127\.0\.0\.1:6868 \(its HTTP API\), not "127\.0\.0\.1:\d+"; a v2 \(MP\) server is host:port with --via mp --mp \(VTS_MP\)/],
    ['bad timeout', ['TESTCAR', 'stat', ...server(), '--timeout', '0'], /--timeout must be/],
    ['MP syntax on a direct path', ['TESTCAR', '#20,1234', ...http()], /use --via server or mp, not http/],
    ['nothing listening', ['TESTCAR', 'stat', '--via', 'http', '--module', `http://127.0.0.1:${port}`], /cannot reach the module at http:\/\/127.0.0.1:\d+: ECONNREFUSED/],
    ['ssh: wrong host key', ['TESTCAR', 'stat', ...ssh().slice(0, 6), '--ssh-fingerprint', 'SHA256:' + 'A'.repeat(43)], /SSH host key of .* is SHA256:/],
  ];
  const runs = await Promise.all(cases.map(([, args]) => vts(args)));
  cases.forEach(([what, , pattern], k) => assertFails(runs[k]!, pattern, what));
});

test('a command the vehicle answers with a failure result prints its output and exits 1', async () => {
  // MP command 40 (SMS) is not one the module supports: c40,2
  const r = await vts(['TESTCAR', '#40', ...server()]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '', 'c40,2 carries no text');
  assert.equal(r.stderr, 'vts: the vehicle answered result 2 (unsupported)\n');
});

test('a timeout is an error, and --help shows examples', async () => {
  const [slow, help] = await Promise.all([vts(['TESTCAR', 'sleep', '3', ...mp(), '--timeout', '0.5']), vts(['--help'])]);
  assertFails(slow, /did not answer in time: no answer from the vehicle within 0.5 s \(VTS_ERR_COMMAND_TIMEOUT\)/, 'timeout');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Examples:\n\s+vts exec DEMO1 stat/);
  assert.match(help.stdout, /--via <path>/);
});
