/**
 * Splits a byte stream into lines: LF ends a line, one CR before it is dropped; CRs elsewhere
 * stay (mp-protocol.md §1). A line longer than `maxLine` bytes is an error: the caller closes the
 * connection. Used by the server's connections and by the MP client.
 */
export class LineSplitter {
  private rest: Buffer | null = null;

  constructor(private readonly maxLine: number) {}

  /**
   * Feeds a chunk; calls `onLine` for every complete line. Returns false (and stops) when a line
   * exceeds the limit.
   */
  push(chunk: Buffer, onLine: (line: string, bytes: number) => boolean | void): boolean {
    let buf = chunk;
    if (this.rest) {
      buf = Buffer.concat([this.rest, chunk]);
      this.rest = null;
    }
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      if (nl - start > this.maxLine + 1) return false;
      const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
      if (onLine(buf.toString('utf8', start, end), nl - start + 1) === false) return true;
      start = nl + 1;
    }
    if (start < buf.length) {
      if (buf.length - start > this.maxLine) return false;
      this.rest = Buffer.from(buf.subarray(start)); // a copy: do not pin the whole chunk
    }
    return true;
  }

  /** The unterminated remainder at the end of the stream (one trailing CR stripped), or null. */
  flush(): string | null {
    const r = this.rest;
    this.rest = null;
    if (!r || r.length === 0) return null;
    const end = r[r.length - 1] === 13 ? r.length - 1 : r.length;
    return r.toString('utf8', 0, end);
  }
}
