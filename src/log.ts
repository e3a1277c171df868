/**
 * Structured logs (pino) on stderr. Secrets are redacted by key wherever they appear, so that a
 * password, token or cookie never reaches a log line even when an object is logged whole.
 */
import { pino, type Logger } from 'pino';

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
];

export function redactPaths(): string[] {
  return REDACTED_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);
}

export function createLogger(level: string, destination: NodeJS.WritableStream | number = 2): Logger {
  const dest = typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: redactPaths(), censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    dest,
  );
}
