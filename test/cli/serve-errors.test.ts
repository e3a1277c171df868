/**
 * `vts serve` when it cannot start: a port in use (each listener), no permission for a low port,
 * an address this machine does not have, a bad data dir or database, a bad certificate. Each is one
 * line `vts: …` naming what and how to fix it, exit 1, no stack (but at --log-level debug), and
 * the process ends by itself: what had started is closed again.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { startServer } from '../../src/server/server.js';
import { TLS_CERT, TLS_KEY } from '../support/server.js';
import { MAIN, hasStack, plainLines, spawnVts, tempFolder, unprivileged, unprivilegedPortStart, type Exited } from './spawn-helpers.js';

const OFF = ['--mp-port', '0', '--http-port', '0', '--mqtt-port', 'off'];
const TLS = ['--tls-cert', TLS_CERT, '--tls-key', TLS_KEY];

function serve(args: string[], opts: Parameters<typeof spawnVts>[1] = {}): Promise<Exited> {
  return spawnVts(['serve', '--bind', '127.0.0.1', ...args], opts);
}

/** A port held by this test (another program, for the child). */
async function holdPort(t: TestContext, port = 0): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  t.after(() => server.close());
  return (server.address() as { port: number }).port;
}

/** Failed as it should: exit 1 by itself, nothing on stdout, exactly `line` as the CLI's own output, no stack. */
function assertFailed(r: Exited, line: string): void {
  assert.equal(r.code, 1, `exit code (a hung child is killed: null); stderr: ${r.stderr}`);
  assert.equal(r.stdout, '', 'no listening line');
  assert.deepEqual(plainLines(r.stderr), [line]);
  assert.ok(!hasStack(r.stderr), `no stack: ${r.stderr}`);
}

test('a port in use: one line with the port, the listener and its option, for every listener', async (t) => {
  const dir = tempFolder(t);
  const taken = await holdPort(t);
  const inUse = (name: string, option: string): string =>
    `vts: port ${taken} (${name}) is in use by another program: stop it or choose another port with ${option} (VTS_ERR_PORT_IN_USE)`;
  const cases: [string[], string][] = [
    [['--mp-port', String(taken), '--http-port', '0', '--mqtt-port', 'off'], inUse('MP', '--mp-port')],
    // the MP listener started before the HTTP one failed: closed again, or the process would not end
    [['--mp-port', '0', '--http-port', String(taken), '--mqtt-port', 'off'], inUse('HTTP API', '--http-port')],
    [[...OFF, ...TLS, '--mp-tls-port', String(taken), '--https-port', '0', '--mqtts-port', 'off'], inUse('MP over TLS', '--mp-tls-port')],
    [[...OFF, ...TLS, '--mp-tls-port', '0', '--https-port', String(taken), '--mqtts-port', 'off'], inUse('HTTPS API', '--https-port')],
    // a given MQTT port is an error (only the default one is optional: see below)
    [['--mp-port', '0', '--http-port', '0', '--mqtt-port', String(taken)], inUse('MQTT broker', '--mqtt-port')],
    [['--mp-port', '0', '--http-port', '0', '--mqtt-port', '0', ...TLS, '--mp-tls-port', '0', '--https-port', '0', '--mqtts-port', String(taken)], inUse('MQTT over TLS', '--mqtts-port')],
    [['--mp-port', '0', '--http-port', '0', '--mqtt-port', '0', '--mqtt-ws-port', String(taken)], inUse('MQTT over WebSocket', '--mqtt-ws-port')],
  ];
  for (const [args, line] of cases) assertFailed(await serve(['--data-dir', dir, ...args]), line);
});

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

test('the last listener failing closes everything started before it: each port can be taken again, the database is closed', async (t) => {
  const dataDir = tempFolder(t);
  const taken = await holdPort(t);
  const [mp, mpTls, http, https, mqtt, mqtts] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const log = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
  await assert.rejects(
    startServer(
      {
        dataDir,
        bind: '127.0.0.1',
        mpPort: mp,
        mpTlsPort: mpTls,
        httpPort: http,
        httpsPort: https,
        tlsCert: TLS_CERT,
        tlsKey: TLS_KEY,
        // the MQTT broker's WebSocket listener is the last to start
        mqtt: { port: mqtt, tlsPort: mqtts, wsPort: taken },
      },
      log,
    ),
    (err: Error & { code?: string }) => err.code === 'VTS_ERR_PORT_IN_USE' && err.message.includes(`port ${taken} (MQTT over WebSocket)`),
  );
  for (const port of [mp, mpTls, http, https, mqtt, mqtts]) await holdPort(t, port); // throws EADDRINUSE when one is left open
  // SQLite removes the write-ahead log when the last connection to the database closes
  assert.ok(existsSync(join(dataDir, 'vts.sqlite')), 'the database was made');
  assert.ok(!existsSync(join(dataDir, 'vts.sqlite-wal')), 'the database is closed');
});

test('a default port in use (6867 here) says which option changes it', async (t) => {
  await holdPort(t, 6867).catch(() => undefined); // taken by some other program already: as good
  const r = await serve(['--data-dir', tempFolder(t), '--http-port', '0', '--mqtt-port', 'off']);
  assertFailed(r, 'vts: port 6867 (MP) is in use by another program: stop it or choose another port with --mp-port (VTS_ERR_PORT_IN_USE)');
});

test('one port given to two options is said so', async (t) => {
  // the child takes it for MP, then fails on it for HTTP
  const port = await freePort();
  const r = await serve(['--data-dir', tempFolder(t), '--mp-port', String(port), '--http-port', String(port), '--mqtt-port', 'off']);
  assertFailed(r, `vts: port ${port} is given to both --mp-port and --http-port: choose another port for one of them (VTS_ERR_PORT_IN_USE)`);
});

test('the default MQTT port in use: a warning that names it, and the server runs without its broker', async (t) => {
  await holdPort(t, 1883).catch(() => undefined); // a system Mosquitto holds it: as good
  const dir = tempFolder(t);
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--bind', '127.0.0.1', '--data-dir', dir, '--mp-port', '0', '--http-port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_'))),
  });
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  assert.equal((JSON.parse(line) as { mqtt: unknown }).mqtt, null);
  const warning = stderr.split('\n').filter((l) => l.includes('"level":40')).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(warning.length, 1, stderr);
  assert.equal(warning[0]!.port, 1883);
  assert.equal(warning[0]!.option, '--mqtt-port');
  assert.match(String(warning[0]!.msg), /MQTT port 1883 in use .*--mqtt-port or use --mqtt-url/);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('--bind to an address this machine does not have, or to no address at all', async (t) => {
  const dir = tempFolder(t);
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): for documentation, never an address of a machine
  assertFailed(
    await serve(['--data-dir', dir, ...OFF, '--bind', '192.0.2.1']),
    'vts: cannot listen on 192.0.2.1: it is not an address of this machine: give one of its addresses with --bind, or leave --bind out to listen on all of them (VTS_ERR_BIND_ADDRESS)',
  );
  assertFailed(
    await serve(['--data-dir', dir, ...OFF, '--bind', 'no-such-host.invalid']),
    "vts: cannot listen on no-such-host.invalid: no such address or host name: give one of this machine's addresses with --bind (VTS_ERR_BIND_ADDRESS)",
  );
});

test('a port below 1024 without privileges (as nobody when the tests run as root)', async (t) => {
  const who = unprivileged();
  if (typeof who === 'string') return t.skip(who);
  if (unprivilegedPortStart() <= 1) return t.skip('every port is unprivileged on this machine (net.ipv4.ip_unprivileged_port_start)');
  const parent = tempFolder(t, who);
  const r = await serve(['--data-dir', join(parent, 'data'), '--mp-port', '0', '--http-port', '1', '--mqtt-port', 'off'], who);
  assertFailed(r, 'vts: no permission to listen on port 1 (HTTP API): ports below 1024 need privileges; choose a port from 1024 up with --http-port (VTS_ERR_PORT_DENIED)');
});

test('a data dir that cannot be used: one line, exit 1, also for /proc/x (no endless loop)', async (t) => {
  const parent = tempFolder(t);
  const file = join(parent, 'a-file');
  writeFileSync(file, 'not a folder');
  const junk = join(parent, 'junk');
  mkdirSync(junk);
  writeFileSync(join(junk, 'vts.sqlite'), Buffer.alloc(4096, 0x5a));
  const cases: [string, string][] = [
    [file, `vts: the data directory ${file} is a file, not a folder: point --data-dir at a folder (VTS_ERR_DATA_DIR)`],
    [
      join(junk, 'vts.sqlite'),
      `vts: the data directory ${join(junk, 'vts.sqlite')} is a file, not a folder: point --data-dir at a folder (VTS_ERR_DATA_DIR)`,
    ],
    [
      junk,
      `vts: ${junk}/vts.sqlite is not a vts database (SQLite: file is not a database): point --data-dir at another folder or move the file away (VTS_ERR_DATABASE)`,
    ],
    // Node's recursive mkdir spins forever here (ENOENT from /proc, EEXIST for /proc, again): a
    // hung child is killed after a minute and fails the test with code null
    ['/proc/vts-no-such-dir', 'vts: cannot create the data directory /proc/vts-no-such-dir: /proc takes no new folders (ENOENT): point --data-dir at another folder (VTS_ERR_DATA_DIR)'],
    // a folder that exists but takes no files
    ['/proc', 'vts: cannot create /proc/vts.sqlite: /proc takes no new files (ENOENT): point --data-dir at another folder (VTS_ERR_DATA_DIR)'],
  ];
  for (const [dataDir, line] of cases) assertFailed(await serve(['--data-dir', dataDir, ...OFF]), line);
});

test('the stack of an error only at --log-level debug', async (t) => {
  const junk = tempFolder(t);
  writeFileSync(join(junk, 'vts.sqlite'), Buffer.alloc(4096, 0x5a));
  const debug = await serve(['--data-dir', junk, ...OFF, '--log-level', 'debug']);
  assert.equal(debug.code, 1);
  assert.match(debug.stderr, /^vts: .* is not a vts database .*\(VTS_ERR_DATABASE\)$/m);
  assert.match(debug.stderr, /^VtsError: .*\n\s+at /m, 'the stack of the error');
  assert.match(debug.stderr, /^cause: SqliteError: file is not a database\n\s+at /m, 'and of its cause');
  // the environment variable is --log-level's: the flag wins over it
  const flag = await serve(['--data-dir', junk, ...OFF, '--log-level', 'info'], { env: { VTS_LOG_LEVEL: 'debug' } });
  assert.equal(flag.code, 1);
  assert.ok(!hasStack(flag.stderr), flag.stderr);
});

test('a new data dir is created and said once in the log; a bad certificate is one line', async (t) => {
  const parent = tempFolder(t);
  const taken = await holdPort(t);
  const dataDir = join(parent, 'new', 'data');
  // the database is made before the listeners start: the port error comes after it
  const first = await serve(['--data-dir', dataDir, '--mp-port', String(taken), '--http-port', '0', '--mqtt-port', 'off']);
  const created = (r: Exited): unknown[] => r.stderr.split('\n').filter((l) => l.includes('created a new database')).map((l) => (JSON.parse(l) as { file: string }).file);
  assert.deepEqual(created(first), [`${dataDir}/vts.sqlite`]);
  const second = await serve(['--data-dir', dataDir, '--mp-port', String(taken), '--http-port', '0', '--mqtt-port', 'off']);
  assert.deepEqual(created(second), [], 'not again');

  const garbage = join(parent, 'garbage.pem');
  writeFileSync(garbage, 'not a certificate\n');
  const bad = await serve(['--data-dir', dataDir, ...OFF, '--tls-cert', garbage, '--tls-key', TLS_KEY]);
  assert.equal(bad.code, 1);
  const lines = plainLines(bad.stderr);
  assert.equal(lines.length, 1, bad.stderr);
  assert.match(lines[0]!, new RegExp(`^vts: TLS certificate or key could not be loaded: ${garbage} is not a PEM certificate \\(.*\\): --tls-cert takes the certificate \\(chain\\), e\\.g\\. fullchain\\.pem \\(VTS_ERR_TLS\\)$`));
  // the two the wrong way round: the certificate file is said
  const swapped = await serve(['--data-dir', dataDir, ...OFF, '--tls-cert', TLS_KEY, '--tls-key', TLS_CERT]);
  assert.match(plainLines(swapped.stderr)[0]!, new RegExp(`^vts: TLS certificate or key could not be loaded: ${TLS_KEY} is not a PEM certificate`));
  // a key of another certificate
  const renewedKey = new URL('../fixtures/tls/renewed-key.pem', import.meta.url).pathname;
  const other = await serve(['--data-dir', dataDir, ...OFF, '--tls-cert', TLS_CERT, '--tls-key', renewedKey]);
  assert.match(plainLines(other.stderr)[0]!, new RegExp(`^vts: TLS certificate or key could not be loaded: the key in ${renewedKey} does not belong to the certificate in ${TLS_CERT} \\(.*\\): give the certificate's own key with --tls-key \\(VTS_ERR_TLS\\)$`));
  const missing = await serve(['--data-dir', dataDir, ...OFF, '--tls-cert', join(parent, 'nothing.pem'), '--tls-key', TLS_KEY]);
  assertFailed(missing, `vts: TLS certificate or key could not be loaded: cannot read ${join(parent, 'nothing.pem')} (ENOENT): check --tls-cert (VTS_ERR_TLS)`);
});

test('a metrics token that cannot go into a header is refused without showing it', async (t) => {
  const dir = tempFolder(t);
  const secret = 'almost-a-good-token\r';
  const r = await serve(['--data-dir', join(dir, 'data'), '--http-port', '0', '--mp-port', '0', '--mqtt-port', 'off'], { env: { VTS_METRICS_TOKEN: secret } });
  assert.equal(r.code, 1);
  assert.deepEqual(plainLines(r.stderr), [
    'vts: invalid configuration: --metrics-token (VTS_METRICS_TOKEN) must be 1-256 printable characters without spaces (it goes into an Authorization header) (VTS_ERR_CONFIG)',
  ]);
  assert.ok(!r.stderr.includes('almost-a-good-token'));
});
