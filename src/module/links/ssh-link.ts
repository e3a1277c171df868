/**
 * The module's SSH server (command-execution.md §4, product-spec.md §4.3 "Module SSH server"), as
 * FW3's `console_ssh.cpp` behaves towards a client:
 * - Public-key authentication against an OpenSSH authorized_keys file or text (any user name, as
 *   the firmware's `ssh.keys` holds one key per user and ours apply to every user); a signature is
 *   verified when the client sends one. Password login only when `allowPassword` is set.
 * - `exec`: the command line goes to the console, its output comes back with CRLF line ends (the
 *   firmware's `ConsoleSSH::write` turns every LF into CRLF), then exit status 0, always, and the
 *   channel closes. `scp -f`/`scp -t` (file transfers on a module) are refused with an scp error
 *   and exit status 1.
 * - `shell`: the welcome banner and a prompt, then a line editor good enough for `ssh -tt`: typed
 *   characters are echoed, Backspace/DEL erases, Enter (CR or LF) runs the line, Ctrl-C and
 *   Ctrl-U drop it, Ctrl-D on an empty line or `exit` ends the session (`logout`, exit status 0),
 *   as does the client's EOF. Escape sequences (arrow keys) and Tab are ignored. Output is written
 *   with CRLF line ends. The commands of a session run one at a time: input typed meanwhile is
 *   handled when the command is done.
 * The host key (ed25519; the firmware's is RSA) is generated on first start into `hostKeyFile`
 * (mode 0600) and reused afterwards.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import ssh2 from 'ssh2';
import type { AuthContext, AuthenticationType, ClientInfo, Connection, ParsedKey, PublicKeyAuthContext, ServerChannel } from 'ssh2';
import type { CommandRunner } from '../console/services.js';
import { VtsError } from '../../errors.js';
import { makeFolder } from '../../util/make-folder.js';

const { Server, utils } = ssh2;

export interface ModuleSshLinkOptions {
  runner: CommandRunner;
  /** OpenSSH authorized_keys file, read at every login attempt. */
  authorizedKeysFile?: string;
  /** authorized_keys text (in addition to the file). */
  authorizedKeys?: string;
  /** The host's private key (OpenSSH format); generated when the file does not exist. */
  hostKeyFile: string;
  /** Accept this password (any user); password login is off without it. */
  allowPassword?: string;
  log: Logger;
  /** Address to listen on (default: all interfaces). */
  host?: string;
  /** Port to listen on; 0 = any free port. */
  port: number;
  /** Prompt of the interactive console (default `OVMS# `). */
  prompt?: string;
  /** Written (LF line ends) when an interactive console opens, before the first prompt. */
  banner?: string;
}

export const DEFAULT_PROMPT = 'OVMS# ';
export const DEFAULT_BANNER = '\nWelcome to the Open Vehicle Monitoring System (OVMS) - SSH Console\n\n';
/** microrl's line buffer keeps 799 bytes. */
const MAX_LINE_BYTES = 799;
/** Failed authentication attempts before the connection is dropped. */
const MAX_AUTH_FAILURES = 10;
/** Time a connection has to authenticate. */
const LOGIN_GRACE_MS = 60_000;
/** Connections served at once. */
const MAX_CONNECTIONS = 32;

/** LF → CRLF, as `ConsoleSSH::write` sends every line end. */
export function crlf(text: string): string {
  return text.replace(/\n/g, '\r\n');
}

/** The first word of a command line, for the log (never its arguments: they may hold secrets). */
function commandName(command: string): string {
  return (command.trim().split(/\s+/, 1)[0] ?? '').slice(0, 32);
}

function sha256(data: Buffer | string): Buffer {
  return createHash('sha256').update(data).digest();
}

function sameSecret(a: Buffer | string, b: Buffer | string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * The public keys of authorized_keys text: one key per line (`type base64 [comment]`); blank lines
 * and `#` comments are skipped, and so are lines with options (`from=…`, `command=…`: not
 * supported, so not silently widened) and keys ssh2 cannot parse.
 */
export function parseAuthorizedKeys(text: string, log?: Logger): ParsedKey[] {
  const keys: ParsedKey[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!/^(ssh-|ecdsa-sha2-|sk-)/.test(line)) {
      log?.warn({ line: i + 1 }, 'authorized_keys: line with options skipped (options are not supported)');
      continue;
    }
    const parsed = utils.parseKey(line);
    const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | undefined) : parsed;
    if (!key || key instanceof Error) {
      log?.warn({ line: i + 1, error: key instanceof Error ? key.message : 'no key' }, 'authorized_keys: key not understood');
      continue;
    }
    keys.push(key);
  }
  return keys;
}

/**
 * A new ed25519 key pair in OpenSSH format. ssh2's generator gives, about 3 times in 1000, a pair
 * that its own parser rejects ("Malformed OpenSSH private key"): such a pair is made again.
 */
export function generateEd25519(comment?: string): { private: string; public: string } {
  for (let attempt = 0; attempt < 20; attempt++) {
    const pair = utils.generateKeyPairSync('ed25519', comment === undefined ? {} : { comment });
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
  throw new Error('could not generate a usable ed25519 key pair');
}

/** The host key of `file`, generated (ed25519, mode 0600) when the file does not exist. */
export function loadHostKey(file: string, log?: Logger): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const pair = generateEd25519('vts module host key');
    try {
      makeFolder(dirname(file), 0o700);
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new VtsError('VTS_ERR_DATA_DIR', `cannot create ${dirname(file)} for the SSH host key (${why}): point --state-dir at a folder vts may write`, {
        whole: true,
        cause: e,
      });
    }
    try {
      writeFileSync(file, pair.private, { mode: 0o600, flag: 'wx' });
      text = pair.private;
      log?.info({ file }, 'SSH host key generated');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      text = readFileSync(file, 'utf8'); // made by someone else meanwhile
    }
  }
  const parsed = utils.parseKey(text);
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | undefined) : parsed;
  if (!key || key instanceof Error || !key.isPrivateKey()) {
    throw new Error(`SSH host key file ${file} does not hold a private key${key instanceof Error ? `: ${key.message}` : ''}`);
  }
  return text;
}

export class ModuleSshLink {
  private server: NetServer | null = null;
  /** Open sockets by `address:port`, with the timer that drops them if they do not log in. */
  private readonly sockets = new Map<string, { socket: Socket; grace: NodeJS.Timeout }>();
  private readonly methods: AuthenticationType[];

  constructor(private readonly opts: ModuleSshLinkOptions) {
    this.methods = opts.allowPassword !== undefined ? ['publickey', 'password'] : ['publickey'];
  }

  /** Starts listening; resolves with the bound port. */
  async start(): Promise<number> {
    if (this.server) throw new Error('module SSH server already started');
    const hostKey = loadHostKey(this.opts.hostKeyFile, this.opts.log);
    const ssh = new Server({ hostKeys: [hostKey] }, (client, info) => this.connection(client, info));
    ssh.maxConnections = MAX_CONNECTIONS;
    // our own listener hands the sockets to ssh2, so that every socket is known (even one that
    // never says a word) and can be timed out and closed
    const server = createServer((socket) => {
      const key = `${socket.remoteAddress}:${socket.remotePort}`;
      const grace = setTimeout(() => {
        this.opts.log.info({ link: 'ssh', ip: socket.remoteAddress }, 'SSH login timed out');
        socket.destroy();
      }, LOGIN_GRACE_MS);
      grace.unref();
      this.sockets.set(key, { socket, grace });
      socket.once('close', () => {
        clearTimeout(grace);
        this.sockets.delete(key);
      });
      ssh.injectSocket(socket);
    });
    this.server = server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        const done = (): void => {
          server.off('error', reject);
          resolve();
        };
        if (this.opts.host !== undefined) server.listen(this.opts.port, this.opts.host, done);
        else server.listen(this.opts.port, done); // every interface, IPv6 and IPv4 where available
      });
    } catch (err) {
      this.server = null;
      throw err;
    }
    server.on('error', (err: Error) => this.opts.log.error({ err }, 'module SSH server error'));
    const port = (server.address() as AddressInfo).port;
    this.opts.log.info({ port }, 'module SSH server listening');
    return port;
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const { socket, grace } of this.sockets.values()) {
      clearTimeout(grace);
      socket.destroy();
    }
    this.sockets.clear();
    await closed;
  }

  /** The keys allowed now (the file is read at every attempt, as sshd does). */
  private authorizedKeys(): ParsedKey[] {
    const keys = this.opts.authorizedKeys ? parseAuthorizedKeys(this.opts.authorizedKeys, this.opts.log) : [];
    const file = this.opts.authorizedKeysFile;
    if (file) {
      try {
        keys.push(...parseAuthorizedKeys(readFileSync(file, 'utf8'), this.opts.log));
      } catch (err) {
        this.opts.log.warn({ file, code: (err as NodeJS.ErrnoException).code }, 'authorized_keys file not readable');
      }
    }
    return keys;
  }

  private checkKey(ctx: PublicKeyAuthContext): boolean {
    const key = this.authorizedKeys().find(
      (k) => k.type === ctx.key.algo && k.getPublicSSH().length === ctx.key.data.length && timingSafeEqual(k.getPublicSSH(), ctx.key.data),
    );
    if (!key) return false;
    // without a signature the client only asks whether the key would do (answered PK_OK)
    if (!ctx.signature) return true;
    return ctx.blob !== undefined && key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
  }

  private connection(client: Connection, info: ClientInfo): void {
    const log = this.opts.log.child({ link: 'ssh', ip: info.ip });
    let failures = 0;
    let user = '';
    client.on('error', (err: Error) => log.debug({ err: err.message }, 'SSH connection error'));
    client.on('authentication', (ctx: AuthContext) => {
      let ok: boolean;
      if (ctx.method === 'publickey') ok = this.checkKey(ctx);
      else if (ctx.method === 'password') ok = this.opts.allowPassword !== undefined && sameSecret(ctx.password, this.opts.allowPassword);
      else return ctx.reject(this.methods); // `none` and the methods we do not offer: not a failure
      if (ok) {
        user = ctx.username;
        return ctx.accept();
      }
      failures++;
      log.info({ user: ctx.username, method: ctx.method }, 'SSH authentication refused');
      ctx.reject(this.methods);
      if (failures >= MAX_AUTH_FAILURES) client.end();
    });
    client.on('ready', () => {
      const entry = this.sockets.get(`${info.ip}:${info.port}`);
      if (entry) clearTimeout(entry.grace);
      log.info({ user }, 'SSH login');
      client.on('session', (accept) => {
        const session = accept();
        session.on('pty', (ok) => ok?.());
        session.on('window-change', (ok) => ok?.());
        session.on('env', (ok) => ok?.());
        session.once('exec', (ok, _reject, req) => this.exec(ok(), req.command, log));
        session.once('shell', (ok) => {
          new ShellSession(ok(), this.opts.runner, this.opts.prompt ?? DEFAULT_PROMPT, this.opts.banner ?? DEFAULT_BANNER, log);
        });
      });
    });
  }

  private exec(channel: ServerChannel, command: string, log: Logger): void {
    channel.on('error', () => undefined);
    channel.on('data', () => undefined); // stdin is not read; keep the window open
    if (command.startsWith('scp -')) {
      log.info('SSH scp refused');
      write(channel, '\x02scp: file transfer is not supported by this module\n');
      done(channel, 1);
      return;
    }
    log.debug({ command: commandName(command) }, 'SSH exec');
    void this.opts.runner
      .execute(command)
      .catch((err: unknown) => {
        log.error({ err, command: commandName(command) }, 'SSH command failed');
        return `ERROR: ${err instanceof Error ? err.message : String(err)}\n`;
      })
      .then((output) => {
        write(channel, crlf(output));
        done(channel, 0); // the firmware reports 0 whatever the command did
      });
  }
}

function open(channel: ServerChannel): boolean {
  return !channel.destroyed && channel.writable;
}

function write(channel: ServerChannel, text: string): void {
  if (text !== '' && open(channel)) channel.write(text);
}

function done(channel: ServerChannel, status: number): void {
  if (!open(channel)) return;
  channel.exit(status);
  channel.end();
}

/** One interactive console: microrl's echo and line editing, one command at a time. */
class ShellSession {
  private line = '';
  private lineBytes = 0;
  private pending = '';
  private busy = false;
  private finished = false;
  private eof = false;
  private afterCr = false;
  /** 0: normal; 1: after ESC; 2: inside a CSI/SS3 sequence. */
  private escape = 0;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly channel: ServerChannel,
    private readonly runner: CommandRunner,
    private readonly prompt: string,
    banner: string,
    private readonly log: Logger,
  ) {
    channel.on('error', () => undefined);
    channel.on('data', (chunk: Buffer) => {
      this.pending += this.decoder.write(chunk);
      void this.pump();
    });
    channel.on('end', () => {
      this.eof = true;
      void this.pump();
    });
    channel.on('close', () => {
      this.finished = true;
    });
    log.debug('SSH shell');
    write(channel, crlf(banner) + prompt);
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (!this.finished && this.pending !== '') {
        const cp = this.pending.codePointAt(0)!;
        const ch = String.fromCodePoint(cp);
        this.pending = this.pending.slice(ch.length);
        await this.key(ch, cp);
      }
      if (this.eof && !this.finished) this.end(false);
    } finally {
      this.busy = false;
    }
  }

  private async key(ch: string, cp: number): Promise<void> {
    const afterCr = this.afterCr;
    this.afterCr = false;
    if (this.escape === 1) {
      this.escape = ch === '[' || ch === 'O' ? 2 : 0;
      return;
    }
    if (this.escape === 2) {
      if (cp >= 0x40 && cp <= 0x7e) this.escape = 0;
      return;
    }
    switch (cp) {
      case 0x0d: // Enter on a terminal
        this.afterCr = true;
        return this.enter();
      case 0x0a: // a bare LF (no pty); the LF of a CRLF pair is part of the same Enter
        return afterCr ? undefined : this.enter();
      case 0x08:
      case 0x7f:
        return this.backspace();
      case 0x03: // Ctrl-C
        this.clear();
        write(this.channel, '^C\r\n' + this.prompt);
        return;
      case 0x15: // Ctrl-U
        this.clear();
        write(this.channel, '\r\x1b[K' + this.prompt);
        return;
      case 0x04: // Ctrl-D
        if (this.line === '') this.end(true);
        return;
      case 0x1b:
        this.escape = 1;
        return;
    }
    if (cp < 0x20) return; // Tab and the other control characters
    const bytes = Buffer.byteLength(ch);
    if (this.lineBytes + bytes > MAX_LINE_BYTES) return;
    this.line += ch;
    this.lineBytes += bytes;
    write(this.channel, ch);
  }

  private clear(): void {
    this.line = '';
    this.lineBytes = 0;
  }

  private backspace(): void {
    if (this.line === '') return;
    const chars = [...this.line];
    const last = chars.pop()!;
    this.line = chars.join('');
    this.lineBytes -= Buffer.byteLength(last);
    write(this.channel, '\b \b');
  }

  private async enter(): Promise<void> {
    const line = this.line;
    this.clear();
    write(this.channel, '\r\n');
    const trimmed = line.trim();
    if (trimmed === 'exit') return this.end(true);
    if (trimmed !== '') {
      this.log.debug({ command: commandName(trimmed) }, 'SSH shell command');
      const output = await this.runner.execute(line).catch((err: unknown) => {
        this.log.error({ err, command: commandName(trimmed) }, 'SSH command failed');
        return `ERROR: ${err instanceof Error ? err.message : String(err)}\n`;
      });
      if (this.finished) return;
      write(this.channel, crlf(output));
    }
    write(this.channel, this.prompt);
  }

  /** `exit` (`ConsoleSSH::Exit`: `logout`, exit status 0), Ctrl-D, or the client's EOF. */
  private end(logout: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (logout) write(this.channel, 'logout\r\n');
    done(this.channel, 0);
  }
}
