/**
 * The TLS certificate is loaded again without a restart (issue 17): on SIGHUP to a real
 * `vts serve`, every TLS listener (MP over TLS, HTTPS, MQTT over TLS) gives new connections the
 * new certificate while a connection opened before keeps working; a bad new certificate is kept
 * out (the old one stays, the log says why); and a change of the files is noticed without a signal.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { FREE_PORTS, listening, serveProcess, exitCode, type Running } from './serve-process.js';
import { FIXTURES, startTestServer } from '../support/server.js';

const fixture = (name: string): string => new URL(`tls/${name}`, FIXTURES).pathname;
const fingerprint = (file: string): string => new X509Certificate(readFileSync(file)).fingerprint256;
const OLD = fingerprint(fixture('cert.pem'));
const RENEWED = fingerprint(fixture('renewed-cert.pem'));

/** A temporary directory (removed after the test) holding copies of the fixture certificate and key. */
function certDir(t: TestContext): { dir: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vts-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  copyFileSync(fixture('cert.pem'), cert);
  copyFileSync(fixture('key.pem'), key);
  return { dir, cert, key };
}

/** A TLS connection to the port and the fingerprint of the certificate it was given. */
async function tlsConnect(port: number): Promise<{ socket: TLSSocket; seen: string }> {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  return { socket, seen: socket.getPeerX509Certificate()!.fingerprint256 };
}

/** One HTTP/1.1 request on an open socket (keep-alive): the status code of its answer. */
async function httpOn(socket: TLSSocket, path: string): Promise<number> {
  const answer = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(await answer)?.[1]);
}

/** The fingerprint a new connection to the port gets (the connection is closed). */
async function certOf(port: number): Promise<string> {
  const { socket, seen } = await tlsConnect(port);
  socket.destroy();
  return seen;
}

/** The first log line with `msg` after line `from` that a SIGHUP caused (the file watch may log too). */
async function lineAfter(r: Running, from: number, msg: string): Promise<Record<string, unknown>> {
  for (let k = 0; k < 300; k++) {
    for (const l of r.stderr.slice(from)) {
      if (!l.includes(msg)) continue;
      const line = JSON.parse(l) as Record<string, unknown>;
      if (line.reason === 'SIGHUP') return line;
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`no log line "${msg}": ${r.stderr.join('\n')}`);
}

test('SIGHUP loads the new certificate into every TLS listener; open connections go on; a bad one is kept out', async (t) => {
  const { dir, cert, key } = certDir(t);
  const r = serveProcess([...FREE_PORTS, '--data-dir', join(dir, 'data'), '--tls-cert', cert, '--tls-key', key]);
  const ports = (await listening(r)) as Record<string, number>;
  const tlsPorts = [ports.mpTls!, ports.https!, ports.mqtts!];

  for (const port of tlsPorts) assert.equal(await certOf(port), OLD);
  const before = await tlsConnect(ports.https!);
  assert.equal(await httpOn(before.socket, '/health'), 200);

  // renewed (as certbot would) and announced
  copyFileSync(fixture('renewed-cert.pem'), cert);
  copyFileSync(fixture('renewed-key.pem'), key);
  let from = r.stderr.length;
  r.child.kill('SIGHUP');
  const reloaded = await lineAfter(r, from, 'TLS certificate reloaded');
  assert.equal(reloaded.listeners, 3);
  assert.equal(reloaded.fingerprint256, RENEWED);
  for (const port of tlsPorts) assert.equal(await certOf(port), RENEWED, `port ${port}`);
  // the connection of before is unharmed, with the certificate it was given
  assert.equal(await httpOn(before.socket, '/health'), 200);
  assert.equal(before.seen, OLD);
  before.socket.destroy();

  // a broken certificate: refused, the renewed one stays
  writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n');
  from = r.stderr.length;
  r.child.kill('SIGHUP');
  const refused = await lineAfter(r, from, 'TLS certificate not reloaded');
  assert.equal(refused.level, 50);
  assert.match(String(refused.error), /cert\.pem is not a PEM certificate/);
  for (const port of tlsPorts) assert.equal(await certOf(port), RENEWED);
  // a key of another certificate: refused too
  copyFileSync(fixture('cert.pem'), cert);
  from = r.stderr.length;
  r.child.kill('SIGHUP');
  await lineAfter(r, from, 'TLS certificate not reloaded');
  assert.equal(await certOf(ports.https!), RENEWED);

  r.child.kill('SIGTERM');
  assert.equal(await exitCode(r), 0);
});

test('a change of the certificate files is noticed without a signal', async (t) => {
  const { cert, key } = certDir(t);
  const s = await startTestServer({ tlsCert: cert, tlsKey: key, tlsWatchIntervalMs: 50, rateLimit: { burst: 0 } });
  t.after(() => s.close());
  const https = s.server.ports.https!;
  assert.equal(await certOf(https), OLD);
  copyFileSync(fixture('renewed-key.pem'), key);
  copyFileSync(fixture('renewed-cert.pem'), cert);
  let seen = OLD;
  for (let k = 0; k < 200 && seen !== RENEWED; k++) {
    await new Promise((res) => setTimeout(res, 50));
    seen = await certOf(https);
  }
  assert.equal(seen, RENEWED);
  assert.ok(s.logs.some((l) => l.includes('"reason":"the certificate files changed"') && l.includes('TLS certificate reloaded')));
});

test('an expired certificate does not replace one that works', async (t) => {
  const { cert, key } = certDir(t);
  const s = await startTestServer({ tlsCert: cert, tlsKey: key, tlsWatchIntervalMs: 0, rateLimit: { burst: 0 } });
  t.after(() => s.close());
  assert.ok(s.logs.some((l) => l.includes('"msg":"TLS certificate loaded"') && l.includes(OLD)), 'the certificate in use is logged at start');
  copyFileSync(fixture('expired-cert.pem'), cert);
  copyFileSync(fixture('expired-key.pem'), key);
  assert.equal(s.server.reloadTls(), false);
  assert.equal(await certOf(s.server.ports.https!), OLD);
  const refused = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'TLS certificate not reloaded: the listeners keep the one they have');
  assert.match(String(refused?.error), /cert\.pem has expired \(Jan {2}1 00:00:00 2001 GMT\): renew it, then send SIGHUP/);
});

test('a certificate not valid yet does not replace one that works', async (t) => {
  const { cert, key } = certDir(t);
  const s = await startTestServer({ tlsCert: cert, tlsKey: key, tlsWatchIntervalMs: 0, rateLimit: { burst: 0 } });
  t.after(() => s.close());
  copyFileSync(fixture('future-cert.pem'), cert);
  copyFileSync(fixture('future-key.pem'), key);
  assert.equal(s.server.reloadTls(), false);
  assert.equal(await certOf(s.server.ports.https!), OLD);
  const refused = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'TLS certificate not reloaded: the listeners keep the one they have');
  assert.equal(refused?.level, 50);
  assert.match(String(refused?.error), /cert\.pem is not valid yet \(from Jan {2}1 00:00:00 2200 GMT\): check the clock/);
});
