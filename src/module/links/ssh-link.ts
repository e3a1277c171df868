/**
 * The module's SSH server (docs/protocol/commands.md §4, §1), as
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
 * (mode 0600) and reused afterwards. The keys are handled in ssh-keys.ts, the interactive console
 * in ssh-shell.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import ssh2 from 'ssh2';
import type { AuthContext, AuthenticationType, ClientInfo, Connection, ParsedKey, PublicKeyAuthContext, ServerChannel } from 'ssh2';
import type { CommandRunner } from '../console/services.js';
import { sameSecret } from '../../core/crypto/same-secret.js';
import { loadHostKey, parseAuthorizedKeys } from './ssh-keys.js';
import { ShellSession, commandName, crlf, done, write } from './ssh-shell.js';

const { Server } = ssh2;

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
/** Failed authentication attempts before the connection is dropped. */
const MAX_AUTH_FAILURES = 10;
/** Time a connection has to authenticate. */
const LOGIN_GRACE_MS = 60_000;
/** Connections served at once. */
const MAX_CONNECTIONS = 32;

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
