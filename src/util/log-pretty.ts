/**
 * `--log-format pretty`: pino's JSON lines turned into one readable line each, for a person at a
 * terminal: `12:04:31.118 INFO  vts listening ports={"mp":6867,…} dataDir=./data`. The secrets are
 * redacted before (pino's redaction runs first); an error's stack follows on its own lines.
 */
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<number, string> = { 10: '\x1b[90m', 20: '\x1b[36m', 30: '\x1b[32m', 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[35m' };
const RESET = '\x1b[0m';
/** Fields every line has, shown in their own place (or not at all). */
const OWN = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** One JSON log line as text; a line that is not JSON comes back as it is. */
export function prettyLine(json: string, colour: boolean): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = typeof rec.level === 'number' ? rec.level : 30;
  const time = typeof rec.time === 'string' ? rec.time.slice(11, 23) : '';
  const name = LEVELS[level] ?? String(level);
  // a line break in a message must not look like another log line
  const msg = typeof rec.msg === 'string' ? rec.msg.replace(/[\r\n]+/g, ' ⏎ ') : '';
  const parts = [time, colour ? `${COLOURS[level] ?? ''}${name}${RESET}` : name, msg];
  let stack = '';
  for (const [k, v] of Object.entries(rec)) {
    if (OWN.has(k)) continue;
    if (k === 'err' && typeof v === 'object' && v !== null) {
      // the message, then its code and whatever else the error carries; the stack on its own lines
      const { message, stack: trace, type: _type, ...more } = v as Record<string, unknown>;
      parts.push(`err=${value(message)}`);
      for (const [ek, ev] of Object.entries(more)) parts.push(`err.${ek}=${value(ev)}`);
      if (typeof trace === 'string') stack = '\n    ' + trace.split('\n').join('\n    ');
      continue;
    }
    parts.push(`${k}=${value(v)}`);
  }
  return parts.filter((p) => p !== '').join(' ') + stack;
}

/** A stream that takes pino's lines and writes them pretty to `out` (synchronously, for a crash's last lines). */
export function prettyStream(out: { write(text: string): unknown }, colour: boolean): Writable {
  let rest = '';
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      const text = rest + chunk.toString('utf8');
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      if (lines.length > 0) out.write(lines.map((l) => prettyLine(l, colour)).join('\n') + '\n');
      done();
    },
  });
}
