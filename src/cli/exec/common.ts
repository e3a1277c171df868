/**
 * What the command paths of `vts exec` share: the request each one gets, the outcome it returns,
 * the failure it throws, and small parsers. One file per path next to this one (server, mp, mqtt,
 * http, ssh), each loaded only when used.
 */
import type { CommandKind, MpCommand } from '../../core/commands/request.js';
import type { MpResultCode } from '../../core/commands/result.js';
import { VtsError } from '../../errors.js';

export const VIAS = ['server', 'mp', 'mqtt', 'http', 'ssh'] as const;
export type Via = (typeof VIAS)[number];

export interface ExecRequest {
  /** Upper-cased, validated. */
  vehicleId: string;
  /** shell: a console line; js: JavaScript; mp: an MP command in the extended syntax (`#…`, `*…#`, `@…`). */
  kind: CommandKind;
  /** The text as the server's command API takes it for `kind`. */
  text: string;
  /** The MP command that carries it (shell and js: code 7 with the console line). */
  mp: MpCommand;
  /** The console line for the paths that talk to the console (shell, and js as `script eval "…"`); mp: null. */
  consoleLine: string | null;
  /** The whole wait, connecting included. */
  timeoutMs: number;
}

export interface ExecOutcome {
  output: string;
  /** 0 ok, 1 failed, 2 unsupported, 3 unimplemented (the direct paths know no failure: always 0). */
  result: MpResultCode;
}

/**
 * A failure of a command path (cannot connect, refused login, bad answer). Its message is one line
 * for `vts: …` and never holds a password, token or key; `code` is shown after it when known.
 */
export class ExecError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ExecError';
  }
}

export const timedOut = (what: string, timeoutMs: number): VtsError =>
  new VtsError('VTS_ERR_COMMAND_TIMEOUT', `${what} within ${formatSeconds(timeoutMs)}`);

export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The reason of a network error for a message: `ECONNREFUSED`, or the error's own message, one line. */
export function reason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const code = e?.cause?.code ?? e?.code;
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  const message = e?.cause?.message ?? e?.message;
  // fetch refuses some ports outright (https://fetch.spec.whatwg.org/#port-blocking)
  if (message === 'bad port') return 'fetch refuses to connect to this port (a blocked port: use another one)';
  return oneLine(typeof message === 'string' ? message : String(err));
}

/** The first line of a text, cut to `max` characters. */
export function oneLine(text: string, max = 200): string {
  const line = (text.split(/\r?\n|\r/).find((l) => l.trim() !== '') ?? '').trim();
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/** `host[:port]` or `[v6]:port`; the port defaults to `defaultPort`. */
export function parseHostPort(value: string, defaultPort: number, what: string): { host: string; port: number } {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/[\]]+)(?::(\d{1,5}))?$/.exec(value.trim());
  const port = m?.[2] === undefined ? defaultPort : Number(m[2]);
  if (!m || port < 1 || port > 65535) throw new VtsError('VTS_ERR_INVALID_INPUT', `${what} must be host[:port]: ${JSON.stringify(value)}`);
  return { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}
