/**
 * Property-based fuzz of the MP framing (src/core/mp/line-splitter.ts): arbitrary bytes in
 * arbitrary chunks, CR/LF mixes, lines around and far over the limit. The splitter never throws,
 * its output is bounded by its input, and the lines it gives (and whether it refuses the stream)
 * do not depend on how the bytes were chunked: they are those of a one-pass model of the rule
 * "LF ends a line, one CR before it is dropped, a line of more than `maxLine` bytes is refused".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineSplitter } from '../../src/core/mp/line-splitter.js';
import { fuzzParams, timed } from '../support/fuzz.js';

interface Outcome {
  lines: string[];
  /** the `bytes` argument of each line */
  sizes: number[];
  /** false when the stream was refused (a line over the limit) */
  ok: boolean;
  /** the flushed remainder, when the stream was not refused */
  rest: string | null;
}

/** The rule, applied to the whole stream at once. `stopAfter`: the callback stops after that many lines. */
function model(bytes: Buffer, maxLine: number, stopAfter = Infinity): Outcome {
  const out: Outcome = { lines: [], sizes: [], ok: true, rest: null };
  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(10, start);
    if (nl < 0) break;
    const end = nl > start && bytes[nl - 1] === 13 ? nl - 1 : nl;
    if (end - start > maxLine) return { ...out, ok: false };
    out.lines.push(bytes.toString('utf8', start, end));
    out.sizes.push(nl - start + 1);
    start = nl + 1;
    if (out.lines.length >= stopAfter) return out; // the rest of this push is dropped
  }
  const tail = bytes.subarray(start);
  // a tail of maxLine bytes plus a CR may still end well (CR LF); anything longer cannot
  if (tail.length > maxLine + 1 || (tail.length === maxLine + 1 && tail[tail.length - 1] !== 13)) return { ...out, ok: false };
  if (tail.length > 0) out.rest = tail.toString('utf8', 0, tail[tail.length - 1] === 13 ? tail.length - 1 : tail.length);
  return out;
}

/** Feeds `chunks` to a fresh splitter until it refuses; then flushes. */
function run(chunks: readonly Buffer[], maxLine: number): Outcome {
  const s = new LineSplitter(maxLine);
  const out: Outcome = { lines: [], sizes: [], ok: true, rest: null };
  for (const c of chunks) {
    if (!s.push(c, (line, n) => void (out.lines.push(line), out.sizes.push(n)))) return { ...out, ok: false };
  }
  out.rest = s.flush();
  return out;
}

/** Cuts `bytes` at the given offsets (sorted, deduplicated, in range). */
function chunk(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, c)); // empty chunks too
    prev = c;
  }
  return out;
}

/** Bytes that hit the interesting cases: CR, LF, multi-byte UTF-8 (and its pieces), plain text. */
const unit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(10, 13, 0x61, 0x2c) },
  { weight: 1, arbitrary: fc.constantFrom(0xc3, 0xbc, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 255 }) },
);
const smallStream = fc.array(unit, { maxLength: 120 }).map((a) => Buffer.from(a));
/** Lines of lengths around a small limit, with every terminator. */
const linesStream = (maxLine: number): fc.Arbitrary<Buffer> =>
  fc
    .array(
      fc.tuple(
        fc.integer({ min: Math.max(0, maxLine - 2), max: maxLine + 2 }).chain((n) => fc.string({ unit: fc.constantFrom('a', 'é', '\r', ','), minLength: n, maxLength: n })),
        fc.constantFrom('\n', '\r\n', '\r\r\n', '', '\r'),
      ),
      { maxLength: 6 },
    )
    .map((parts) => Buffer.from(parts.map(([l, t]) => l + t).join(''), 'utf8'));

const maxLine = fc.integer({ min: 0, max: 24 });
const cuts = fc.array(fc.nat(), { maxLength: 40 });

test('property: any chunking of any bytes gives the lines of the one-pass model, never a throw', () => {
  fc.assert(
    fc.property(
      maxLine.chain((m) => fc.tuple(fc.constant(m), fc.oneof(smallStream, linesStream(m)), cuts)),
      ([m, bytes, at]) => {
        const expected = model(bytes, m);
        assert.deepEqual(run([bytes], m), expected, 'one chunk');
        assert.deepEqual(run(chunk(bytes, at), m), expected, 'chunked');
      },
    ),
    fuzzParams(3000),
  );
});

test('property: byte by byte is the same as all at once', () => {
  fc.assert(
    fc.property(
      maxLine.chain((m) => fc.tuple(fc.constant(m), fc.oneof(smallStream, linesStream(m)))),
      ([m, bytes]) => {
        const singles = [...bytes].map((b) => Buffer.from([b]));
        assert.deepEqual(run(singles, m), model(bytes, m));
      },
    ),
    fuzzParams(1500),
  );
});

test('property: bounded output: lines ≤ LFs, each line ≤ maxLine bytes, sizes account for the bytes', () => {
  fc.assert(
    fc.property(maxLine, smallStream, cuts, (m, bytes, at) => {
      const r = run(chunk(bytes, at), m);
      const lfs = bytes.filter((b) => b === 10).length;
      assert.ok(r.lines.length <= lfs);
      for (const l of r.lines) assert.ok(Buffer.byteLength(l, 'utf8') <= 3 * m, 'U+FFFD for an invalid byte at most triples it');
      for (const l of r.lines) assert.ok(l.length <= m, 'UTF-16 units ≤ bytes');
      const used = r.sizes.reduce((a, b) => a + b, 0);
      assert.ok(used <= bytes.length);
      if (r.ok) assert.equal(used, bytes.lastIndexOf(10) + 1, 'every byte up to the last LF is in a line');
    }),
    fuzzParams(2000),
  );
});

test('property: the callback stops the splitting where it says, in any chunk', () => {
  fc.assert(
    fc.property(maxLine, smallStream, fc.integer({ min: 1, max: 5 }), (m, bytes, stop) => {
      const s = new LineSplitter(m);
      const lines: string[] = [];
      const ok = s.push(bytes, (l) => {
        lines.push(l);
        return lines.length < stop;
      });
      const expected = model(bytes, m, stop);
      assert.deepEqual(lines, expected.lines);
      if (lines.length >= stop) assert.equal(ok, true, 'a stop is not a refusal');
    }),
    fuzzParams(2000),
  );
});

test('a line of maxLine + 1 bytes is refused whether its LF comes in the same chunk or the next', () => {
  // regression: the complete-line check allowed one byte more than the partial-line check
  assert.equal(new LineSplitter(8).push(Buffer.from('123456789\n'), () => {}), false);
  const s = new LineSplitter(8);
  assert.equal(s.push(Buffer.from('123456789'), () => {}), false);
  // and maxLine bytes with CR LF split before the LF is fine
  const t = new LineSplitter(8);
  const lines: string[] = [];
  assert.equal(t.push(Buffer.from('12345678\r'), (l) => void lines.push(l)), true);
  assert.equal(t.push(Buffer.from('\n'), (l) => void lines.push(l)), true);
  assert.deepEqual(lines, ['12345678']);
});

test('time: a long line dripped in small chunks and 1 MB of CR LF stay linear', () => {
  // regression: the pending bytes were copied again with every chunk (quadratic: minutes for this)
  const guard = (what: string, f: () => void): void => timed(what, '', f);
  const big = 4 * 1024 * 1024;
  guard('a 4 MB line in 32-byte chunks', () => {
    const s = new LineSplitter(big);
    const piece = Buffer.alloc(32, 0x2c);
    for (let n = 0; n < big / 32; n++) assert.ok(s.push(piece, () => {}));
    const lines: string[] = [];
    assert.ok(s.push(Buffer.from('\r\nx'), (l) => void lines.push(l)));
    assert.equal(lines[0]!.length, big);
    assert.equal(s.flush(), 'x');
  });
  guard('a 16 KB line byte by byte', () => {
    const s = new LineSplitter(16 * 1024);
    const b = Buffer.from([0x2c]);
    for (let n = 0; n < 16 * 1024; n++) assert.ok(s.push(b, () => {}));
    assert.equal(s.push(b, () => {}), false);
  });
  guard('1 MB of CR and LF', () => {
    const s = new LineSplitter(16);
    let n = 0;
    assert.ok(s.push(Buffer.alloc(1024 * 1024, '\r\n'), () => void n++));
    assert.equal(n, 512 * 1024);
  });
});
