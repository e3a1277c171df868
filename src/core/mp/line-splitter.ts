/**
 * Splits a byte stream into lines: LF ends a line, one CR before it is dropped; CRs elsewhere
 * stay (docs/protocol/mp.md §1). A line longer than `maxLine` bytes (without its CR LF or LF) is an
 * error, whether it arrives in one chunk or in many: the caller closes the connection. Used by the
 * server's connections and by the MP client.
 *
 * The unterminated start of a line is kept as a list of chunks and joined once, when its LF
 * arrives: a long line dripped in small chunks costs linear time, not quadratic.
 */
export class LineSplitter {
  /** Copies of the chunks of the unterminated line (none: no pending bytes). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxLine: number) {}

  /**
   * Feeds a chunk; calls `onLine` for every complete line. Returns false (and stops) when a line
   * exceeds the limit.
   */
  push(chunk: Buffer, onLine: (line: string, bytes: number) => boolean | void): boolean {
    if (chunk.indexOf(10) < 0) {
      if (chunk.length === 0) return true;
      this.pending.push(Buffer.from(chunk)); // a copy: do not pin the caller's chunk
      this.pendingBytes += chunk.length;
      return this.pendingFits(chunk[chunk.length - 1]!);
    }
    let buf = chunk;
    if (this.pendingBytes > 0) {
      // the pending start of a line is joined once, now that its LF has come
      buf = Buffer.concat([...this.pending, chunk], this.pendingBytes + chunk.length);
    }
    this.pending = [];
    this.pendingBytes = 0;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
      if (end - start > this.maxLine) return false;
      if (onLine(buf.toString('utf8', start, end), nl - start + 1) === false) return true;
      start = nl + 1;
    }
    if (start < buf.length) {
      this.pending.push(Buffer.from(buf.subarray(start))); // a copy: do not pin the whole chunk
      this.pendingBytes = buf.length - start;
      return this.pendingFits(buf[buf.length - 1]!);
    }
    return true;
  }

  /** Whether the unterminated line can still end within the limit (maxLine bytes and a CR may precede a LF). */
  private pendingFits(lastByte: number): boolean {
    const n = this.pendingBytes;
    return n <= this.maxLine || (n === this.maxLine + 1 && lastByte === 13);
  }

  /** The unterminated remainder at the end of the stream (one trailing CR stripped), or null. */
  flush(): string | null {
    const r = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (r.length === 0) return null;
    const end = r[r.length - 1] === 13 ? r.length - 1 : r.length;
    return r.toString('utf8', 0, end);
  }
}
