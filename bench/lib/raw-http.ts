/**
 * One HTTP/1.1 GET on a connection of its own, read as the bytes on the wire (status line,
 * headers in their order, body), for comparing two servers' answers byte for byte.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  /** The whole answer as sent. */
  bytes: Buffer;
  statusCode: number;
  reason: string;
  /** The header lines in their order, as [name, value] as sent. */
  headers: [string, string][];
  body: Buffer;
}

/** Sends `GET path` with `headers` (and a `Host`) and reads one answer (it must have a Content-Length). */
export function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const lines = [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(lines.join('\r\n') + '\r\n\r\n');
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new Error(`no whole answer from port ${port} within 5 s`)), 5000);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.on('error', fail);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...headerLines] = got.subarray(0, end).toString('latin1').split('\r\n');
      const parsed = headerLines.map((l): [string, string] => {
        const colon = l.indexOf(':');
        return [l.slice(0, colon), l.slice(colon + 1).trim()];
      });
      const length = Number(parsed.find(([k]) => k.toLowerCase() === 'content-length')?.[1] ?? NaN);
      if (!Number.isInteger(length)) return fail(new Error(`answer without a Content-Length: ${statusLine}`));
      if (got.length < end + 4 + length) return;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3}) ?(.*)$/.exec(statusLine);
      resolve({
        bytes: got.subarray(0, end + 4 + length),
        statusCode: Number(m?.[1] ?? 0),
        reason: m?.[2] ?? '',
        headers: parsed,
        body: got.subarray(end + 4, end + 4 + length),
      });
    });
  });
}

/** The answer's bytes with the values of `Date` and `Expires` (the clock's) blanked. */
export function withoutClock(a: RawAnswer): string {
  return a.bytes.toString('latin1').replace(/^(Date|Expires): .*$/gim, '$1: -');
}
