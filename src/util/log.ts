/**
 * Structured logs (pino) on stderr: JSON lines, or one readable line each (`--log-format pretty`,
 * the default on a terminal). Secrets are redacted by key wherever they appear, so that a
 * password, token or cookie never reaches a log line even when an object is logged whole.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyStream } from './log-pretty.js';

export const REDACTED_KEYS = [
  'password',
  'passwordHash',
  'carPassword',
  'carpass',
  'netPass',
  'token',
  'tokenHash',
  'apikey',
  'cookie',
  'secret',
  'digest',
  'authorization',
  'metricsToken',
  'abrpApiKey',
  'abrpTokenKey',
  'apiKey',
  'tokenKey',
];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Pretty for a person at a terminal, JSON for a log collector (journald, docker, a file). */
export function defaultLogFormat(stream: { isTTY?: boolean } = process.stderr): LogFormat {
  return stream.isTTY ? 'pretty' : 'json';
}

/** The format each logger of createLogger writes (its children are made from it by prototype). */
const formats = new WeakMap<object, LogFormat>();

/** The format `log` (or the logger it is a child of) writes; JSON when it was not made here. */
export function logFormatOf(log: Logger): LogFormat {
  for (let l: object | null = log; l; l = Object.getPrototypeOf(l) as object | null) {
    const f = formats.get(l);
    if (f) return f;
  }
  return 'json';
}

export function redactPaths(): string[] {
  return REDACTED_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);
}

/**
 * A logger at `level` writing to `destination` (a file descriptor, stderr by default, or a
 * stream) in `format` (default: pretty on a terminal, JSON otherwise).
 */
export function createLogger(level: string, destination: NodeJS.WritableStream | number = 2, format?: LogFormat): Logger {
  const fd = typeof destination === 'number' ? destination : undefined;
  const chosen = format ?? (fd === 2 ? defaultLogFormat() : 'json');
  const raw: DestinationStream = typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
  const dest = chosen === 'pretty' ? prettyStream(raw, fd === 2 && process.stderr.isTTY === true && !process.env.NO_COLOR) : raw;
  const log = pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: redactPaths(), censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    dest,
  );
  formats.set(log, chosen);
  return log;
}
