/**
 * The module emulator's SSH server (docs/protocol/commands.md §4): public keys from an authorized_keys
 * file (read at each login) or text, password login only when enabled, a host key generated once
 * (mode 0600) and reused; `exec` gives the command's output with CRLF line ends and exit status 0
 * whatever the command did (`scp` is refused with status 1); `shell` gives an interactive console
 * with a prompt, echo, line editing, one command at a time, `exit` and Ctrl-D. Real sockets, the
 * ssh2 client, key pairs made in the test, a fake console.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import ssh2 from 'ssh2';
import type { ClientChannel, ConnectConfig, ParsedKey, PublicKeyAuthMethod } from 'ssh2';
import { createLogger } from '../../src/util/log.js';
import type { CommandRunner } from '../../src/module/console/services.js';
import { ModuleSshLink, type ModuleSshLinkOptions } from '../../src/module/links/ssh-link.js';
import { generateEd25519 } from '../../src/module/links/ssh-keys.js';

const { Client, utils } = ssh2;
type SshClient = InstanceType<typeof Client>;

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/** A console that records its lines; `sleep …` lines finish when the test releases them. */
interface FakeRunner extends CommandRunner {
  lines: string[];
  release(output: string): void;
}

function fakeRunner(): FakeRunner {
  const held: ((s: string) => void)[] = [];
  const r: FakeRunner = {
    lines: [],
    execute: (l) =>
      new Promise((resolve) => {
        r.lines.push(l);
        if (l.startsWith('sleep')) held.push(resolve);
        else resolve(l === 'echo hi' ? 'hi\n' : l === 'two' ? 'line 1\nline 2\n' : 'Unrecognised command\n');
      }),
    evalScript: async () => '',
    release: (output) => held.shift()!(output),
  };
  return r;
}

interface Harness {
  dir: string;
  port: number;
  runner: FakeRunner;
  /** The private key of the authorized client. */
  key: string;
  link: ModuleSshLink;
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'vts-ssh-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function harness(t: TestContext, o: Partial<ModuleSshLinkOptions> = {}, dir = tempDir(t)): Promise<Harness> {
  const pair = generateEd25519();
  writeFileSync(join(dir, 'authorized_keys'), `# the test client\n\n${pair.public}\n`);
  const runner = fakeRunner();
  const link = new ModuleSshLink({
    runner,
    authorizedKeysFile: join(dir, 'authorized_keys'),
    hostKeyFile: join(dir, 'host', 'ssh_host_ed25519_key'),
    log: quiet,
    host: '127.0.0.1',
    port: 0,
    ...o,
  });
  const port = await link.start();
  t.after(() => link.close());
  return { dir, port, runner, key: pair.private, link };
}

/** Connects as `ovms`; the host keys the server shows are pushed to `hostKeys`. */
function connect(t: TestContext, port: number, auth: Partial<ConnectConfig>, hostKeys: Buffer[] = []): Promise<SshClient> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.on('ready', () => {
      t.after(() => c.end());
      resolve(c);
    });
    c.on('error', reject);
    c.connect({
      host: '127.0.0.1',
      port,
      username: 'ovms',
      ...auth,
      hostVerifier: (key: Buffer) => {
        hostKeys.push(key);
        return true;
      },
    });
  });
}

/** The error of a connection the server refuses. */
async function refused(t: TestContext, port: number, auth: Partial<ConnectConfig>): Promise<Error & { level?: string }> {
  try {
    await connect(t, port, auth);
  } catch (err) {
    return err as Error & { level?: string };
  }
  assert.fail('the server let the client in');
}

function exec(c: SshClient, command: string): Promise<{ out: string; err: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    c.exec(command, (e, stream) => {
      if (e) return reject(e);
      let out = '';
      let err = '';
      let code: number | null = null;
      stream.on('data', (d: Buffer) => (out += d.toString()));
      stream.stderr.on('data', (d: Buffer) => (err += d.toString()));
      stream.on('exit', (status: number) => (code = status));
      stream.on('close', () => resolve({ out, err, code }));
    });
  });
}

/** What an interactive session has shown so far, and waits for more. */
class Terminal {
  text = '';
  code: number | null = null;
  readonly closed: Promise<void>;
  private waiters: (() => void)[] = [];

  constructor(readonly stream: ClientChannel) {
    stream.on('data', (d: Buffer) => {
      this.text += d.toString();
      for (const w of this.waiters.splice(0)) w();
    });
    stream.on('exit', (status: number) => (this.code = status));
    this.closed = new Promise((resolve) => stream.on('close', () => resolve()));
  }

  /** Resolves once the screen shows `s` at or after `from`; returns the index after it. */
  async until(s: string, from = 0): Promise<number> {
    for (;;) {
      const at = this.text.indexOf(s, from);
      if (at >= 0) return at + s.length;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

function shell(c: SshClient, pty = true): Promise<Terminal> {
  return new Promise((resolve, reject) => {
    const cb = (e: Error | undefined, stream: ClientChannel): void => (e ? reject(e) : resolve(new Terminal(stream)));
    if (pty) c.shell({ term: 'xterm', rows: 24, cols: 80 }, cb);
    else c.shell(false, cb);
  });
}

function fingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64');
}

test('exec returns the output with CRLF line ends and exit status 0, whatever the command did', async (t) => {
  const h = await harness(t);
  const c = await connect(t, h.port, { privateKey: h.key });
  assert.deepEqual(await exec(c, 'echo hi'), { out: 'hi\r\n', err: '', code: 0 });
  assert.deepEqual(await exec(c, 'two'), { out: 'line 1\r\nline 2\r\n', err: '', code: 0 });
  assert.deepEqual(await exec(c, 'no such "command"'), { out: 'Unrecognised command\r\n', err: '', code: 0 });
  assert.deepEqual(h.runner.lines, ['echo hi', 'two', 'no such "command"']);
});

test('scp (file transfer on a module) is refused with an scp error and status 1', async (t) => {
  const h = await harness(t);
  const c = await connect(t, h.port, { privateKey: h.key });
  const r = await exec(c, 'scp -f /store/ovms_config.tar');
  assert.equal(r.code, 1);
  assert.equal(r.out[0], '\x02', 'an scp error message');
  assert.match(r.out, /^.scp: .*\n$/);
  assert.deepEqual(h.runner.lines, []);
});

test('a key that is not authorized is refused, and so is a client without a key', async (t) => {
  const h = await harness(t);
  const stranger = generateEd25519().private;
  assert.equal((await refused(t, h.port, { privateKey: stranger })).level, 'client-authentication');
  assert.equal((await refused(t, h.port, {})).level, 'client-authentication');
  const rsa = utils.generateKeyPairSync('rsa', { bits: 2048 }).private;
  assert.equal((await refused(t, h.port, { privateKey: rsa })).level, 'client-authentication');
  assert.deepEqual(h.runner.lines, []);
});

test('a client cannot log in with an authorized public key but a signature of another key', async (t) => {
  const h = await harness(t);
  const real = utils.parseKey(h.key);
  const impostor = utils.parseKey(generateEd25519().private);
  assert.ok(!(impostor instanceof Error) && !(real instanceof Error) && !Array.isArray(impostor) && !Array.isArray(real));
  // offers the authorized key's public half and signs with a private key of its own
  const forged: ParsedKey = Object.create(impostor, { getPublicSSH: { value: () => real.getPublicSSH() } });
  assert.ok(forged.getPublicSSH().equals(real.getPublicSSH()));
  const offer: PublicKeyAuthMethod = { type: 'publickey', username: 'ovms', key: forged };
  const err = await refused(t, h.port, { authHandler: [offer] });
  assert.equal(err.level, 'client-authentication');
  assert.deepEqual(h.runner.lines, []);
});

test('passwords are refused unless a password is enabled; then only that one is accepted', async (t) => {
  const off = await harness(t);
  assert.equal((await refused(t, off.port, { password: 'secret' })).level, 'client-authentication');
  assert.equal((await refused(t, off.port, { password: '' })).level, 'client-authentication');

  const on = await harness(t, { allowPassword: 'secret' });
  const c = await connect(t, on.port, { password: 'secret' });
  assert.deepEqual(await exec(c, 'echo hi'), { out: 'hi\r\n', err: '', code: 0 });
  for (const wrong of ['Secret', 'secret ', 'secre', '']) {
    assert.equal((await refused(t, on.port, { password: wrong })).level, 'client-authentication', wrong);
  }
  // the keys still work
  await connect(t, on.port, { privateKey: on.key });
});

test('authorized_keys is read at every login; keys also come as text; lines with options are skipped', async (t) => {
  const dir = tempDir(t);
  const fromText = generateEd25519();
  const withOptions = generateEd25519();
  const rsa = utils.generateKeyPairSync('rsa', { bits: 2048 });
  const h = await harness(t, { authorizedKeys: `${fromText.public}\ncommand="stat" ${withOptions.public}\nnot a key\n${rsa.public}\n` }, dir);
  await connect(t, h.port, { privateKey: fromText.private });
  await connect(t, h.port, { privateKey: rsa.private }); // signed with rsa-sha2-*
  assert.equal((await refused(t, h.port, { privateKey: withOptions.private })).level, 'client-authentication');

  const later = utils.generateKeyPairSync('ecdsa', { bits: 256 });
  assert.equal((await refused(t, h.port, { privateKey: later.private })).level, 'client-authentication');
  appendFileSync(join(dir, 'authorized_keys'), `${later.public}\n`);
  const c = await connect(t, h.port, { privateKey: later.private });
  assert.equal((await exec(c, 'echo hi')).out, 'hi\r\n');
});

test('the host key is generated on first start (mode 0600) and the same key is used after a restart', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'host', 'ssh_host_ed25519_key');
  const first = await harness(t, {}, dir);
  const stat = statSync(file);
  assert.equal(stat.mode & 0o777, 0o600);
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^-----BEGIN OPENSSH PRIVATE KEY-----/);

  const seen: Buffer[] = [];
  await connect(t, first.port, { privateKey: first.key }, seen);
  await first.link.close();

  const second = await harness(t, {}, dir);
  await connect(t, second.port, { privateKey: second.key }, seen);
  assert.equal(seen.length, 2);
  assert.equal(fingerprint(seen[1]!), fingerprint(seen[0]!));
  assert.equal(seen[0]!.subarray(4, 15).toString(), 'ssh-ed25519');
  assert.equal(readFileSync(file, 'utf8'), text);

  // another file, another key
  const other = await harness(t, { hostKeyFile: join(dir, 'other_key') }, dir);
  await connect(t, other.port, { privateKey: other.key }, seen);
  assert.notEqual(fingerprint(seen[2]!), fingerprint(seen[0]!));
});

test('a shell shows the banner and prompt, echoes, runs a line on Enter, ends with exit', async (t) => {
  const h = await harness(t);
  const c = await connect(t, h.port, { privateKey: h.key });
  const term = await shell(c);
  let at = await term.until('OVMS# ');
  assert.match(term.text, /^\r\nWelcome to the Open Vehicle Monitoring System \(OVMS\) - SSH Console\r\n\r\nOVMS# $/);

  term.stream.write('echo hi\r');
  at = await term.until('echo hi\r\nhi\r\nOVMS# ', at);
  term.stream.write('two\r');
  at = await term.until('two\r\nline 1\r\nline 2\r\nOVMS# ', at);
  term.stream.write('\r');
  at = await term.until('\r\nOVMS# ', at);
  term.stream.write('exit\r');
  await term.until('exit\r\nlogout\r\n', at);
  await term.closed;
  assert.equal(term.code, 0);
  assert.deepEqual(h.runner.lines, ['echo hi', 'two']);
});

test('shell line editing: backspace, Ctrl-C, Ctrl-U, arrow keys ignored, Ctrl-D on an empty line ends', async (t) => {
  const h = await harness(t, { prompt: 'EMU# ' });
  const c = await connect(t, h.port, { privateKey: h.key });
  const term = await shell(c);
  let at = await term.until('EMU# ');

  term.stream.write('ecx\x7fho hx\x08i\r');
  at = await term.until('ecx\b \bho hx\b \bi\r\nhi\r\nEMU# ', at);
  term.stream.write('config set\x03');
  at = await term.until('config set^C\r\nEMU# ', at);
  term.stream.write('rm -rf\x15');
  at = await term.until('rm -rf\r\x1b[KEMU# ', at);
  term.stream.write('\x1b[A\x1b[Decho hi\x1bOB\r');
  at = await term.until('echo hi\r\nhi\r\nEMU# ', at);
  term.stream.write('x\x04\x7f\x04');
  await term.closed;
  assert.equal(term.code, 0);
  assert.equal(term.text.slice(at), 'x\b \blogout\r\n', 'Ctrl-D on a line that is not empty does nothing');
  assert.deepEqual(h.runner.lines, ['echo hi', 'echo hi']);
});

test('the commands of a session run one at a time; input typed meanwhile waits', async (t) => {
  const h = await harness(t);
  const c = await connect(t, h.port, { privateKey: h.key });
  const term = await shell(c);
  let at = await term.until('OVMS# ');
  term.stream.write('sleep 5\recho hi\r');
  at = await term.until('sleep 5\r\n', at);
  assert.deepEqual(h.runner.lines, ['sleep 5']);
  assert.equal(term.text.indexOf('echo', at), -1);

  h.runner.release('slept\n');
  at = await term.until('slept\r\nOVMS# echo hi\r\nhi\r\nOVMS# ', at);
  assert.deepEqual(h.runner.lines, ['sleep 5', 'echo hi']);
});

test('a shell without a pty takes LF as Enter and ends at the end of its input', async (t) => {
  const h = await harness(t);
  const c = await connect(t, h.port, { privateKey: h.key });
  const term = await shell(c, false);
  term.stream.end('echo hi\r\nnothing\n');
  await term.closed;
  assert.equal(term.code, 0);
  assert.match(term.text, /OVMS# echo hi\r\nhi\r\nOVMS# nothing\r\nUnrecognised command\r\nOVMS# $/);
  assert.deepEqual(h.runner.lines, ['echo hi', 'nothing']);
});

test('close() drops every connection: a logged-in shell and a socket that never spoke', { timeout: 10_000 }, async (t) => {
  const h = await harness(t);
  const c = await connect(t, h.port, { privateKey: h.key });
  const clientClosed = new Promise<void>((resolve) => c.on('close', () => resolve()));
  const term = await shell(c);
  await term.until('OVMS# ');
  const silent = tcpConnect(h.port, '127.0.0.1');
  const silentClosed = new Promise<void>((resolve) => silent.on('close', () => resolve()));
  silent.on('error', () => undefined);
  silent.resume(); // reads the server's greeting, so that its end can be seen
  await new Promise<void>((resolve) => silent.once('connect', () => resolve()));

  await h.link.close();
  await clientClosed;
  await silentClosed;
  assert.equal(term.code, null, 'no exit status: the connection was dropped');
  await assert.rejects(connect(t, h.port, { privateKey: h.key }), /ECONNREFUSED/);
});
