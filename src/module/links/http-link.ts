/**
 * The module's own web server, as far as its API goes: `/api/execute` (docs/protocol/commands.md §3,
 * docs/protocol/commands.md §1), as FW3's `PageEntry::Serve` and
 * `OvmsWebServer::HandleCommand` answer it:
 * - GET reads its parameters only from the query string, POST only from the body (whatever its
 *   content type); names match case-insensitively, the first occurrence wins, `+` is a space.
 *   `apikey`, `type` and `output` are read as C strings of at most 199 bytes; `command` is not cut.
 * - Authentication: none when the admin password is empty; otherwise `apikey` must equal it
 *   (compared in constant time). A wrong `apikey` gets 403 `ERROR: Unauthorized`, a missing one the
 *   403 login form fragment of the web UI. (Web session cookies are not emulated.)
 * - A shell command longer than 2000 bytes is a 400; JavaScript (`type=js`) has no length check.
 * - Otherwise the 200 status line and headers go out before the command runs (the content type
 *   chosen by `output`, `Cache-Control: no-cache`), then the output as a chunked body, and the
 *   connection closes. An empty or missing `command` is a 200 with an empty body. A command whose
 *   client went away still runs to completion; its output is dropped.
 * Every other path or method is a 404.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { CommandRunner } from '../console/services.js';

export interface ModuleHttpLinkOptions {
  runner: CommandRunner;
  /** The module's admin password (`config password module`); empty: no authentication at all. */
  adminPassword: string;
  log: Logger;
  /** Address to listen on (default: all interfaces). */
  host?: string;
  /** Port to listen on; 0 = any free port. */
  port: number;
  /** Serve HTTPS with this certificate and key (PEM text, or paths of PEM files). */
  tls?: { cert: string; key: string };
}

/** The firmware's limit for a shell command (`HandleCommand`). */
export const MAX_COMMAND_BYTES = 2000;
/** `PageContext::getvar` reads into a 200-byte buffer: at most 199 bytes of a value. */
export const MAX_VAR_BYTES = 199;
/** Largest request body accepted (the JavaScript of `type=js` has no other bound). */
export const MAX_BODY_BYTES = 64 * 1024;

export const UNAUTHORIZED_BODY = 'ERROR: Unauthorized\n';
export const TOO_LONG_BODY = `ERROR: command too long (max ${MAX_COMMAND_BYTES} chars)`;

/** Content types by `output` (`HandleCommand`). */
const OUTPUT_TYPES: Record<string, string> = {
  text: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  binary: 'application/octet-stream; charset=x-user-defined',
};
/** The default: octet-stream, so that browsers do not buffer chunked text. */
const DEFAULT_OUTPUT_TYPE = 'application/octet-stream; charset=utf-8';
/** `PageContext::head` without headers. */
const HTML_TYPE = 'text/html; charset=utf-8';

/** The content type of a 200 `/api/execute` answer for an `output` parameter. */
export function outputContentType(output: string): string {
  return OUTPUT_TYPES[output] ?? DEFAULT_OUTPUT_TYPE;
}

const AMP = 0x26;
const EQUALS = 0x3d;
const PERCENT = 0x25;
const PLUS = 0x2b;

function hexValue(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

/**
 * mongoose's `mg_get_http_var`: the value of the first `name=` (case-insensitive) at the start of
 * `buf` or after an `&`, URL-decoded (`+` is a space) into at most `maxBytes` bytes. Undefined when
 * the name does not occur; empty when the value is not valid URL encoding.
 */
export function getVar(buf: Buffer, name: string, maxBytes = Infinity): Buffer | undefined {
  const key = Buffer.from(name, 'latin1');
  for (let p = 0; p + key.length < buf.length; p++) {
    if (p > 0 && buf[p - 1] !== AMP) continue;
    if (buf[p + key.length] !== EQUALS) continue;
    let same = true;
    for (let i = 0; i < key.length && same; i++) same = lower(buf[p + i]!) === lower(key[i]!);
    if (!same) continue;
    const start = p + key.length + 1;
    let end = buf.indexOf(AMP, start);
    if (end < 0) end = buf.length;
    const out: number[] = [];
    for (let i = start; i < end && out.length < maxBytes; i++) {
      const c = buf[i]!;
      if (c === PERCENT) {
        const hi = i + 2 < end ? hexValue(buf[i + 1]) : -1;
        const lo = hi >= 0 ? hexValue(buf[i + 2]) : -1;
        if (lo < 0) return Buffer.alloc(0);
        out.push((hi << 4) | lo);
        i += 2;
      } else out.push(c === PLUS ? 0x20 : c);
    }
    return Buffer.from(out);
  }
  return undefined;
}

/** `PageContext::getvar(name)`: a C string of at most 199 bytes (empty when absent). */
export function getShortVar(buf: Buffer, name: string): Buffer {
  const value = getVar(buf, name, MAX_VAR_BYTES);
  if (!value) return Buffer.alloc(0);
  const nul = value.indexOf(0);
  return nul < 0 ? value : value.subarray(0, nul);
}

function sha256(data: Buffer | string): Buffer {
  return createHash('sha256').update(data).digest();
}

/** The first word of a command line, for the log (never its arguments: they may hold secrets). */
export function commandName(command: string): string {
  return (command.trim().split(/\s+/, 1)[0] ?? '').slice(0, 32);
}

function pem(text: string): string {
  return text.includes('-----BEGIN') ? text : readFileSync(text, 'utf8');
}

// The web UI's HTML helpers (web_framework.cpp), for the login form fragment
function encodeHtml(text: string): string {
  return text.replace(/["'<>&]/g, (c) => ({ '"': '&quot;', "'": '&#x27;', '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);
}

function input(type: string, label: string, name: string, placeholder: string | null, moreattrs: string): string {
  return (
    '<div class="form-group">' +
    `<label class="control-label col-sm-3" for="input-${encodeHtml(name)}">${label}:</label>` +
    '<div class="col-sm-9">' +
    `<input type="${type}" class="form-control" placeholder="${placeholder === null ? 'Enter ' + encodeHtml(label) : encodeHtml(placeholder)}"` +
    ` name="${encodeHtml(name)}" id="input-${encodeHtml(name)}" value="" ${moreattrs}>` +
    '</div>' +
    '</div>'
  );
}

/**
 * `OvmsWebServer::HandleLogin` for a protected page requested without a session: the alert (for
 * a POST, the failed validation of its `username`/`password` fields) and the login form.
 */
export function loginForm(method: string, uri: string, returnUri: string): string {
  const alert =
    method === 'POST'
      ? '<p class="lead">Error!</p><ul class="errorlist"><li>Login validation failed, please check username &amp; password</li></ul>'
      : '<p class="lead">Login required</p>';
  return (
    `<div class="alert alert-danger">${alert}</div>` +
    '<div class="panel panel-primary" id="panel-login"><div class="panel-heading">Login</div><div class="panel-body">' +
    `<form class="form-horizontal" method="post" action="${encodeHtml(uri)}" target="#main">` +
    (returnUri ? `<input type="hidden" name="uri" value="${encodeHtml(returnUri)}">` : '') +
    input('text', 'Username', 'username', "empty = 'admin'", 'autocomplete="section-login username"') +
    input('password', 'Password', 'password', null, 'autocomplete="section-login current-password"') +
    '<div class="form-group"><div class="col-sm-offset-3 col-sm-9"><button type="submit" class="btn btn-default"  >Login</button></div></div>' +
    '</form>' +
    '</div></div>'
  );
}

/**
 * Sends the status line and headers at once (`mg_send_head` with an unknown length: chunked), then
 * the body when it is known. Writes to a response whose client has gone are dropped.
 */
function head(res: ServerResponse, status: number, contentType: string, close: boolean): void {
  res.on('error', () => undefined);
  const headers: Record<string, string> = { 'Content-Type': contentType, 'Cache-Control': 'no-cache' };
  if (close) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.flushHeaders();
}

function finish(res: ServerResponse, body: string): void {
  if (res.destroyed || res.writableEnded) return;
  res.end(body);
}

/** Listens on `host`, or without one on every interface (IPv6 and IPv4, or IPv4 alone). */
async function listenAll(app: FastifyInstance, host: string | undefined, port: number): Promise<void> {
  if (host !== undefined) {
    await app.listen({ host, port });
    return;
  }
  try {
    await app.listen({ host: '::', port });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT' && (err as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') throw err;
    await app.listen({ host: '0.0.0.0', port });
  }
}

export class ModuleHttpLink {
  private app: FastifyInstance | null = null;
  private readonly passwordDigest: Buffer;

  constructor(private readonly opts: ModuleHttpLinkOptions) {
    this.passwordDigest = sha256(Buffer.from(opts.adminPassword, 'utf8'));
  }

  /** Starts listening; resolves with the bound port. */
  async start(): Promise<number> {
    if (this.app) throw new Error('module HTTP server already started');
    const tls = this.opts.tls;
    const app = Fastify({
      logger: false, // the URL carries the apikey: vts logs itself
      bodyLimit: MAX_BODY_BYTES,
      exposeHeadRoutes: false,
      forceCloseConnections: true,
      keepAliveTimeout: 30_000,
      requestTimeout: 30_000,
      ...(tls ? { https: { cert: pem(tls.cert), key: pem(tls.key) } } : {}),
    }) as unknown as FastifyInstance;

    // The firmware reads the body as urlencoded whatever its content type says
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

    app.setErrorHandler((err: FastifyError, req, reply) => {
      const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
      if (code >= 500) this.opts.log.error({ err, path: req.url.split('?', 1)[0] }, 'module HTTP request failed');
      const text = code === 413 ? 'Payload Too Large' : code < 500 ? 'Bad Request' : 'Internal Server Error';
      return reply.code(code).header('content-type', 'text/plain').send(text);
    });
    app.setNotFoundHandler((_req, reply) =>
      reply.code(404).header('content-type', 'text/plain').header('connection', 'close').send('Not Found'),
    );
    app.route({ method: ['GET', 'POST'], url: '/api/execute', handler: (req, reply) => this.execute(req, reply) });

    this.app = app;
    try {
      await listenAll(app, this.opts.host, this.opts.port);
    } catch (err) {
      this.app = null;
      await app.close().catch(() => undefined);
      throw err;
    }
    const port = (app.server.address() as AddressInfo).port;
    this.opts.log.info({ port, tls: Boolean(tls) }, 'module HTTP server listening');
    return port;
  }

  /** Stops listening and drops open connections; commands still running finish unheard. */
  async close(): Promise<void> {
    const app = this.app;
    if (!app) return;
    this.app = null;
    await app.close();
  }

  /** The apikey's bytes against the password's, in constant time (digests of equal length). */
  private authorized(apikey: Buffer): boolean {
    if (this.opts.adminPassword === '') return true;
    return timingSafeEqual(sha256(apikey), this.passwordDigest);
  }

  private execute(req: FastifyRequest, reply: FastifyReply): void {
    // GET: the query string only; POST: the body only (a POST's query string is ignored)
    const raw = req.raw.url ?? '';
    const q = raw.indexOf('?');
    const source =
      req.method === 'POST'
        ? Buffer.isBuffer(req.body)
          ? req.body
          : Buffer.alloc(0)
        : Buffer.from(q < 0 ? '' : raw.slice(q + 1), 'latin1');
    const path = q < 0 ? raw : raw.slice(0, q);
    reply.hijack();
    const res = reply.raw;
    const log = this.opts.log;

    const apikey = getShortVar(source, 'apikey');
    if (!this.authorized(apikey)) {
      log.info({ ip: req.ip, auth: apikey.length === 0 ? 'missing' : 'wrong' }, 'module HTTP: unauthorized');
      head(res, 403, HTML_TYPE, false);
      finish(res, apikey.length > 0 ? UNAUTHORIZED_BODY : loginForm(req.method, path, getShortVar(source, 'uri').toString('utf8')));
      return;
    }

    const javascript = getShortVar(source, 'type').toString('latin1') === 'js';
    const output = getShortVar(source, 'output').toString('latin1');
    const bytes = getVar(source, 'command') ?? Buffer.alloc(0);
    if (!javascript && bytes.length > MAX_COMMAND_BYTES) {
      log.info({ ip: req.ip, bytes: bytes.length }, 'module HTTP: command too long');
      head(res, 400, HTML_TYPE, false);
      finish(res, TOO_LONG_BODY);
      return;
    }
    const command = bytes.toString('utf8');
    if (command === '') {
      head(res, 200, outputContentType(output), false);
      finish(res, '');
      return;
    }

    log.debug({ ip: req.ip, ...(javascript ? { type: 'js' } : { command: commandName(command) }) }, 'module HTTP: execute');
    head(res, 200, outputContentType(output), true);
    void (javascript ? this.opts.runner.evalScript(command) : this.opts.runner.execute(command))
      .catch((err: unknown) => {
        log.error({ err, ...(javascript ? { type: 'js' } : { command: commandName(command) }) }, 'module HTTP: command failed');
        return `ERROR: ${err instanceof Error ? err.message : String(err)}\n`;
      })
      .then((text) => finish(res, text));
  }
}
