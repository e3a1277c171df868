/**
 * Property-based fuzz of the MP message parsers (src/core/mp/): the welcome line, scheme 0 and 1
 * messages, field splitting, historical `H`/`h`, paranoid `E`, push subscriptions `p`, groups
 * `g`/`G`, commands `C`/`c`, the car-message rules and the server commands' answers. Each parser
 * returns a value or null for anything (garbage, valid-looking lines with a mutated field, 100 KB
 * adversarial repetitions), never throws, takes linear time, and gives back what its formatter (or
 * the protocol's shape) put in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { repairStatus, replayOrder } from '../../src/core/mp/car-message.js';
import { commandFunction, commandParams, completesCommand, encodeText, failureResponse } from '../../src/core/mp/command.js';
import { groupMessageData, parseGroupSubscription, parseGroupUpdate } from '../../src/core/mp/group.js';
import { historicalTimes, parseAckedH, parseH } from '../../src/core/mp/historical.js';
import { formatScheme0, parseScheme0, parseScheme1, splitFields } from '../../src/core/mp/message.js';
import { parseParanoid } from '../../src/core/mp/paranoid.js';
import { parsePushSubscription } from '../../src/core/mp/push-subscription.js';
import { historicalRecordsResponse, historicalSummaryResponse, utilisationResponse } from '../../src/core/mp/server-commands.js';
import { CLIENT_TYPES, parseWelcome, scheme0Reply, scheme1Reply } from '../../src/core/mp/welcome.js';
import { parseResponse } from '../../src/core/commands/result.js';
import { formatUtc } from '../../src/core/time.js';
import { fuzzParams, longInputParams, timed } from '../support/fuzz.js';

/** Whether a string is well-formed UTF-16 (no lone surrogate). */
const wellFormed = (s: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

/** Text with the MP's separators and odd characters in it. */
const mpChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(',', ' ', '\t', '\r', '\n', 'a', 'Z', '0', '1', '-', '=', '#', '/', '*', '@', 'M', 'P', 'T', 'E') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u00a0', '\u2028', '\u2029', '\u000b', '\u0000', '\ufeff', 'ß', 'é', '😀', '\ud800', '\udc00') },
);
const text = (maxLength = 40): fc.Arbitrary<string> => fc.string({ unit: mpChar, maxLength });
/** Well-formed text (no lone surrogates). */
const wfText = (maxLength = 40): fc.Arbitrary<string> => text(maxLength).filter(wellFormed);
/** Any UTF-16 (lone surrogates too), as garbage. */
const anyUtf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 60 });
const garbage = fc.oneof(text(80), anyUtf16, fc.string({ unit: 'binary', maxLength: 80 }));

/** A short pattern repeated to (up to) 100 KB, between a prefix that reaches the parser's deep paths and a suffix. */
function adversarial(prefixes: readonly string[], tokens: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...prefixes),
      fc.array(fc.constantFrom(...tokens), { minLength: 1, maxLength: 4 }).map((a) => a.join('')),
      fc.integer({ min: 1000, max: 100_000 }),
      fc.constantFrom('', '\n', '\r', '\u2028', 'x', ',', ' ', '=', '/', '#'),
    )
    .map(([p, pattern, len, suffix]) => p + pattern.repeat(Math.ceil(len / pattern.length)).slice(0, len) + suffix);
}
const TOKENS = [',', ' ', '\t', 'a', '0', '9', '-', '\r', '\n', '=', '/', '#', 'MP-C ', ',,', 'A', '\u2028'];

/** Inserts, deletes or replaces one character of `s` at a random place. */
function mutate(s: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(s, fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), mpChar).map(([str, at, op, c]) => {
    const i = str.length === 0 ? 0 : at % str.length;
    if (op === 'insert') return str.slice(0, i) + c + str.slice(i);
    if (op === 'delete') return str.slice(0, i) + str.slice(i + 1);
    return str.slice(0, i) + c + str.slice(i + 1);
  });
}

const noComma = (t: fc.Arbitrary<string>): fc.Arbitrary<string> => t.map((s) => s.replace(/,/g, ''));
const int12 = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -999_999_999_999, max: 999_999_999_999 }));

// --- the welcome line ---

/** A token of the welcome line: no space, tab or other blank. */
const token = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '+', '/', '=', '*', '-', 'é', '😀', '.', ','), minLength: 1, maxLength: 24 });
const blanks = fc.string({ unit: fc.constantFrom(' ', '\t'), minLength: 1, maxLength: 3 });

test('property: the welcome line parser classifies anything without throwing', () => {
  const lines = fc.oneof(
    garbage,
    mutate(fc.tuple(fc.constantFrom('C', 'A', 'B', 'S', 'X'), fc.constantFrom('0', '1', '2'), token, token, token).map(([t, s, a, b, c]) => `MP-${t} ${s} ${a} ${b} ${c}`)),
    mutate(fc.tuple(token, token).map(([a, b]) => `AP-C ${a} ${b}`)),
  );
  fc.assert(
    fc.property(lines, (line) => {
      const w = parseWelcome(line);
      switch (w.kind) {
        case 'login':
          assert.ok(CLIENT_TYPES.includes(w.clientType));
          assert.ok(w.scheme === '0' || w.scheme === '1');
          for (const f of [w.field1, w.field2, w.vehicleId]) assert.match(f, /^\S+$/);
          assert.equal(w.vehicleId, w.vehicleId.toUpperCase());
          assert.ok(line.startsWith(`MP-${w.clientType}`));
          assert.ok(line.includes(w.field1) && line.includes(w.field2));
          break;
        case 'autoprovision':
          assert.ok(line.startsWith('AP-C') && line.includes(w.key) && line.includes(w.scheme));
          break;
        case 'error':
          assert.ok(['garbage', 'unknown-client-type', 'unsupported-scheme'].includes(w.reason));
          break;
      }
    }),
    fuzzParams(4000),
  );
});

test('property: a well-formed welcome line gives back its fields (blanks of spaces and tabs, any tail)', () => {
  const tail = fc.oneof(fc.constant(''), fc.tuple(blanks, fc.string({ unit: fc.constantFrom('x', ' ', '\t', 'é', ','), maxLength: 10 })).map(([b, t]) => b + t));
  fc.assert(
    fc.property(
      fc.constantFrom(...CLIENT_TYPES),
      fc.constantFrom('0', '1'),
      fc.array(blanks, { minLength: 4, maxLength: 4 }),
      token,
      token,
      token,
      tail,
      (type, scheme, b, f1, f2, vid, rest) => {
        const line = `MP-${type}${b[0]}${scheme}${b[1]}${f1}${b[2]}${f2}${b[3]}${vid}${rest}`;
        assert.deepEqual(parseWelcome(line), { kind: 'login', clientType: type, scheme, field1: f1, field2: f2, vehicleId: vid.toUpperCase() });
      },
    ),
    fuzzParams(2000),
  );
});

test('property: the server replies have the shape the clients parse', () => {
  fc.assert(
    fc.property(token, token, fc.array(token, { maxLength: 5 }), (a, b, ids) => {
      assert.deepEqual(scheme0Reply(a, b).split(' '), ['MP-S', '0', a, b]);
      assert.deepEqual(scheme1Reply(a, b, ids).split(' '), ['MP-S', '1', a, b, ...ids]);
    }),
    fuzzParams(500),
  );
});

// --- messages ---

/** A message code: one code point that is not white space. */
const code = fc.oneof(
  fc.constantFrom('S', 'D', 'L', 'C', 'c', 'E', 'H', 'h', 'p', 'g', 'G', 'A', 'Z', '😀', 'é', '*'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => !/\s/u.test(c)),
);

test('property: scheme 0 and scheme 1 messages round-trip; anything else is null, never a throw', () => {
  fc.assert(
    fc.property(code, wfText(60), (c, data) => {
      assert.deepEqual(parseScheme0(formatScheme0(c, data)), { code: c, data });
      assert.deepEqual(parseScheme1(c + data), { code: c, data });
    }),
    fuzzParams(3000),
  );
  fc.assert(
    fc.property(fc.oneof(garbage, mutate(fc.tuple(code, wfText()).map(([c, d]) => formatScheme0(c, d)))), (line) => {
      const m0 = parseScheme0(line);
      if (m0) {
        assert.ok(line.startsWith('MP-0') && /\s/.test(line[4]!));
        assert.equal(line.slice(5), m0.code + m0.data);
        assert.ok(!/\s/u.test(m0.code));
      }
      const m1 = parseScheme1(line);
      if (m1) assert.equal(m1.code + m1.data, line);
      else assert.ok(line === '' || /^\s/u.test(line));
    }),
    fuzzParams(3000),
  );
});

test('property: splitFields splits at exactly the first n commas, and the fields join back', () => {
  fc.assert(
    fc.property(garbage, fc.integer({ min: 0, max: 8 }), (data, n) => {
      const f = splitFields(data, n);
      const commas = data.split(',').length - 1;
      if (commas < n) return assert.equal(f, null);
      assert.ok(f);
      assert.equal(f.length, n + 1);
      assert.equal(f.join(','), data);
      for (const x of f.slice(0, n)) assert.ok(!x.includes(','));
    }),
    fuzzParams(3000),
  );
});

// --- historical records ---

const recordType = noComma(wfText(12)).filter((t) => t !== '');

test('property: H and h records round-trip; timestamps stay formattable', () => {
  fc.assert(
    fc.property(recordType, int12, int12, int12, wfText(60), noComma(wfText(10)), (type, num, life, diff, data, ack) => {
      assert.deepEqual(parseH(`${type},${num},${life},${data}`), { type, recordNumber: num, lifetime: life, data, timeDiff: 0 });
      const acked = parseAckedH(`${ack},${diff},${type},${num},${life},${data}`);
      assert.deepEqual(acked, { ackCode: ack, record: { type, recordNumber: num, lifetime: life, data, timeDiff: diff } });
      const now = 1_700_000_000;
      const { time, expires } = historicalTimes(acked.record!, now);
      assert.ok(time <= now && expires >= time);
      formatUtc(time);
      formatUtc(expires);
    }),
    fuzzParams(3000),
  );
});

test('property: any H or h data parses to a record of safe numbers or to null; h always has its ack code', () => {
  const structured = fc
    .tuple(fc.array(fc.oneof(text(8), int12.map(String), fc.constantFrom('', '-', '+1', '1e3', '0x10', ' 1', '1 ', '٣')), { minLength: 3, maxLength: 7 }), wfText(20))
    .map(([fields, rest]) => [...fields, rest].join(','));
  fc.assert(
    fc.property(fc.oneof(garbage, structured, mutate(structured)), (data) => {
      for (const rec of [parseH(data), parseAckedH(data).record]) {
        if (!rec) continue;
        assert.ok(rec.type !== '' && !rec.type.includes(','));
        for (const n of [rec.recordNumber, rec.lifetime, rec.timeDiff]) assert.ok(Number.isSafeInteger(n) && Math.abs(n) < 1e12, String(n));
        const { time, expires } = historicalTimes(rec, 1_700_000_000);
        assert.ok(Number.isFinite(time) && Number.isFinite(expires));
        formatUtc(time);
        formatUtc(expires);
      }
      const ack = parseAckedH(data).ackCode;
      assert.equal(ack, data.split(',', 1)[0]);
    }),
    fuzzParams(3000),
  );
});

// --- paranoid, push subscriptions, groups ---

test('property: paranoid ET and EM round-trip, garbage is null, well-formed input gives well-formed parts', () => {
  fc.assert(
    fc.property(wfText(40), code, wfText(40), (tok, inner, payload) => {
      if (tok.length >= 2) assert.deepEqual(parseParanoid('T' + tok), { kind: 'token', token: tok });
      if (inner.length + payload.length >= 2) assert.deepEqual(parseParanoid('M' + inner + payload), { kind: 'message', innerCode: inner, payload });
    }),
    fuzzParams(3000),
  );
  fc.assert(
    fc.property(garbage, (data) => {
      const p = parseParanoid(data);
      if (!p) return;
      if (p.kind === 'token') assert.equal('T' + p.token, data);
      else {
        assert.equal('M' + p.innerCode + p.payload, data);
        assert.ok(!/\s/u.test(p.innerCode));
        if (wellFormed(data)) assert.ok(wellFormed(p.innerCode) && wellFormed(p.payload), 'no lone surrogate from a well-formed message');
      }
    }),
    fuzzParams(3000),
  );
});

test('a paranoid inner code outside the BMP is the whole character (regression)', () => {
  assert.deepEqual(parseParanoid('M😀xy'), { kind: 'message', innerCode: '😀', payload: 'xy' });
  assert.equal(parseParanoid('M\u2028xy'), null);
});

test('property: push subscriptions in the full form round-trip (the password may hold commas); the rest is null or a short form', () => {
  const field = noComma(wfText(12)).filter((s) => s !== '');
  fc.assert(
    fc.property(field, field, noComma(wfText(8)), field, wfText(20).filter((s) => s !== ''), field, (app, type, keyType, vid, pass, key) => {
      const p = parsePushSubscription([app, type, keyType, vid, pass, key].join(','));
      assert.deepEqual(p, {
        appId: app,
        pushType: type,
        pushKeyType: type === 'apns' ? 'production' : keyType,
        vehicleId: vid.toUpperCase(),
        netPass: pass,
        pushKeyValue: key,
      });
    }),
    fuzzParams(3000),
  );
  fc.assert(
    fc.property(fc.oneof(garbage, mutate(fc.array(field, { minLength: 4, maxLength: 7 }).map((a) => a.join(',')))), (data) => {
      const p = parsePushSubscription(data);
      if (!p) return;
      assert.ok(p.appId !== '' && p.pushType !== '');
      if (p.vehicleId === undefined) assert.equal(data, [p.appId, p.pushType, 'simple', p.pushKeyValue].join(','));
      else assert.ok(p.vehicleId !== '' && p.netPass !== '' && p.pushKeyValue !== '');
    }),
    fuzzParams(3000),
  );
});

test('property: group updates and subscriptions round-trip with the group upper-cased', () => {
  fc.assert(
    fc.property(noComma(wfText(12)), wfText(40), (group, data) => {
      const u = parseGroupUpdate(`${group},${data}`);
      if (group === '') assert.equal(u, null);
      else assert.deepEqual(u, { group: group.toUpperCase(), groupData: data });
      const s = parseGroupSubscription(`${group},${data}`);
      if (group.trim() === '') assert.equal(s, null);
      else assert.equal(s, group.trim().toUpperCase());
      assert.equal(groupMessageData('V', group, data), `V,${group},${data}`);
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(garbage, (data) => {
      const u = parseGroupUpdate(data);
      if (u) assert.ok(u.group !== '' && !u.group.includes(','));
      const s = parseGroupSubscription(data);
      if (s !== null) assert.ok(s !== '' && !s.includes(','));
    }),
    fuzzParams(2000),
  );
});

// --- commands and responses ---

test('property: C requests: the function and the parameters come back; anything else has no function', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 999_999 }), wfText(40), fc.boolean(), (fn, params, withParams) => {
      const data = withParams ? `${fn},${params}` : String(fn);
      assert.equal(commandFunction(data), fn);
      assert.equal(commandParams(data), withParams ? params : '');
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(garbage, (data) => {
      const fn = commandFunction(data);
      if (fn !== null) assert.ok(Number.isSafeInteger(fn) && fn >= 0 && fn <= 999_999);
      const p = commandParams(data);
      assert.ok(data.endsWith(p));
    }),
    fuzzParams(2000),
  );
});

test('property: c responses of functions 1 and 3 complete on their last line; every other response completes', () => {
  fc.assert(
    fc.property(fc.constantFrom(1, 3), fc.integer({ min: 1, max: 50 }), fc.nat(60), wfText(20), (fn, count, k, rest) => {
      assert.equal(completesCommand(`${fn},0,${k},${count},${rest}`), k >= count - 1);
      assert.equal(completesCommand(`${fn},1,${rest}`), true, 'an error completes');
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(fc.oneof(garbage, mutate(fc.tuple(fc.constantFrom('1', '3'), fc.nat(5), fc.nat(5)).map(([f, a, b]) => `${f},0,${a},${b},x`))), (data) => {
      const done = completesCommand(data);
      assert.equal(typeof done, 'boolean');
      const fn = data.split(',', 1)[0];
      if (fn !== '1' && fn !== '3') assert.equal(done, true);
    }),
    fuzzParams(2000),
  );
});

test('property: mp_encode leaves one line without commas, idempotently; a failure reply parses back', () => {
  fc.assert(
    fc.property(garbage, fc.integer({ min: 0, max: 99 }), (t, fn) => {
      const e = encodeText(t);
      assert.ok(!e.includes('\n') && !e.includes(','));
      assert.equal(encodeText(e), e);
      assert.deepEqual(parseResponse(failureResponse(fn, t)), { code: fn, result: 1, data: e });
    }),
    fuzzParams(2000),
  );
});

// --- car messages and the server's own command answers ---

test('property: the 1.2.0 status repair removes one comma from the first ",performance,," of an S only', () => {
  const withPerf = fc.tuple(wfText(20), wfText(20)).map(([a, b]) => `${a},performance,,${b}`);
  fc.assert(
    fc.property(code, fc.oneof(garbage, withPerf), (c, data) => {
      const r = repairStatus(c, data);
      if (c !== 'S' || !data.includes(',performance,,')) return assert.equal(r, data);
      assert.equal(r.length, data.length - 1);
      const at = data.indexOf(',performance,,');
      assert.equal(r, data.slice(0, at) + ',performance,' + data.slice(at + 14));
    }),
    fuzzParams(2000),
  );
});

test('property: the replay order is a total order with F, then S, first', () => {
  fc.assert(
    fc.property(code, code, code, (a, b, c) => {
      assert.equal(replayOrder(a, a), 0);
      assert.equal(Math.sign(replayOrder(a, b)) + Math.sign(replayOrder(b, a)), 0);
      if (replayOrder(a, b) <= 0 && replayOrder(b, c) <= 0) assert.ok(replayOrder(a, c) <= 0);
      if (a === 'F' && b !== 'F') assert.ok(replayOrder(a, b) < 0);
      if (a === 'S' && b !== 'F' && b !== 'S') assert.ok(replayOrder(a, b) < 0);
    }),
    fuzzParams(2000),
  );
});

test('property: the answers to 30, 31 and 32 are numbered 1..n lines that split back into their fields', () => {
  const time = fc.integer({ min: 0, max: 4_102_444_800 });
  const row = fc.record({ type: recordType, time, recordNumber: fc.integer({ min: -1e6, max: 1e9 }), data: wfText(30) });
  fc.assert(
    fc.property(fc.array(row, { maxLength: 6 }), (rows) => {
      const lines = historicalRecordsResponse(rows);
      if (rows.length === 0) return assert.deepEqual(lines, ['32,1,No historical data available']);
      lines.forEach((line, k) => {
        const f = splitFields(line, 7);
        assert.ok(f);
        const r = rows[k]!;
        assert.deepEqual(f, ['32', '0', String(k + 1), String(rows.length), r.type, formatUtc(r.time), String(r.recordNumber), r.data]);
        assert.equal(parseResponse(line)?.code, 32);
      });
    }),
    fuzzParams(1000),
  );
  const summary = fc.record({ type: recordType, distinctRecords: fc.nat(), totalRecords: fc.nat(), totalSize: fc.nat(), first: time, last: time });
  const day = fc.record({ day: fc.constant('2024-01-02'), carRx: fc.nat(), carTx: fc.nat(), appRx: fc.nat(), appTx: fc.nat() });
  fc.assert(
    fc.property(fc.array(summary, { maxLength: 5 }), fc.array(day, { maxLength: 5 }), (types, days) => {
      for (const [fn, lines, n, width] of [
        [31, historicalSummaryResponse(types), types.length, 6],
        [30, utilisationResponse(days), days.length, 5],
      ] as const) {
        if (n === 0) assert.match(lines[0]!, new RegExp(`^${fn},1,`));
        lines.forEach((line, k) => {
          if (n === 0) return;
          assert.deepEqual(line.split(',').slice(0, 4), [String(fn), '0', String(k + 1), String(n)]);
          assert.equal(line.split(',').length, 4 + width);
        });
      }
    }),
    fuzzParams(1000),
  );
});

// --- time: long adversarial inputs ---

test('property: every MP parser takes linear time on 100 KB adversarial lines', () => {
  const long = adversarial(['', 'MP-C 0 ', 'MP-A 1 a b ', 'MP-C ', 'AP-C ', 'MP-0 ', 'T', 'M', 'a,b,c,', '1,0,', '3,0,1,', 'app,gcm,simple,', 'S'], TOKENS);
  fc.assert(
    fc.property(long, (line) => {
      timed('parseWelcome', line, () => parseWelcome(line));
      timed('parseScheme0', line, () => parseScheme0(line));
      timed('parseScheme1', line, () => parseScheme1(line));
      timed('splitFields', line, () => splitFields(line, 5));
      timed('parseH', line, () => parseH(line));
      timed('parseAckedH', line, () => parseAckedH(line));
      timed('parseParanoid', line, () => parseParanoid(line));
      timed('parsePushSubscription', line, () => parsePushSubscription(line));
      timed('parseGroupUpdate', line, () => parseGroupUpdate(line));
      timed('parseGroupSubscription', line, () => parseGroupSubscription(line));
      timed('commandFunction', line, () => commandFunction(line));
      timed('completesCommand', line, () => completesCommand(line));
      timed('encodeText', line, () => encodeText(line));
      timed('repairStatus', line, () => repairStatus('S', line));
    }),
    longInputParams(150),
  );
});
