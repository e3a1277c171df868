/**
 * Property-based fuzz of remote commands in the core (src/core/commands/): the extended command
 * syntax (`#<code>[,<params>][/<n>]`, `*<ussd>#`, `@<modem>`, shell), the kinds shell/js/mp, the
 * masking of secrets for the audit, the outcome of `c` records and the v3 console mapping. Any text
 * is a command or the one documented error (VTS_ERR_COMMAND_SYNTAX), in linear time; what the
 * syntax writes, it reads back; a PIN or password never reaches the audit text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { redactMp, redactShell } from '../../src/core/commands/redact.js';
import { MAX_COMMAND_LENGTH, MAX_RECORDS, mpCommandData, parseExtended, toMpCommand, type CommandKind, type MpCommand } from '../../src/core/commands/request.js';
import { decodeText, outcomeOf, parseResponse } from '../../src/core/commands/result.js';
import { CONSOLE_LINE_BYTES } from '../../src/core/commands/script-eval.js';
import { mpToShell, responseData, shellOutcome } from '../../src/core/commands/shell-map.js';
import { encodeText } from '../../src/core/mp/command.js';
import { isVtsError } from '../../src/errors.js';
import { fuzzParams, longInputParams, timed } from '../support/fuzz.js';

/** Calls `f`; a throw must be the documented syntax error. Returns the result or undefined. */
function orSyntaxError<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    assert.ok(isVtsError(e, 'VTS_ERR_COMMAND_SYNTAX'), `an undocumented error: ${String(e)}`);
    return undefined;
  }
}

const cmdChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('#', '*', '@', ',', '/', ' ', '0', '1', '9', 'a', 'Z', '-', '\t', '"', "'", '\\') },
  { weight: 1, arbitrary: fc.constantFrom('\r', '\n', '\u2028', '\u2029', '\u0085', '\u0000', 'é', '😀', '\ud800', '\u00a0') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const cmdText = (maxLength = 40): fc.Arbitrary<string> => fc.string({ unit: cmdChar, maxLength });
const anyText = fc.oneof(cmdText(60), fc.string({ maxLength: 60 }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 }));
const kind = fc.constantFrom<CommandKind>('shell', 'js', 'mp');

/** `#<code>[,<params>][/<n>]` with the parts a little wrong now and then. */
const rawSyntax = fc
  .tuple(
    fc.oneof(fc.integer({ min: 0, max: 9999 }).map(String), fc.constantFrom('', '00', '12345', 'x', '-1', ' 1', '１')),
    fc.option(cmdText(20)),
    fc.option(fc.oneof(fc.integer({ min: 0, max: 1100 }).map(String), fc.constantFrom('', '99999', 'x', '-1', '1/2'))),
  )
  .map(([c, p, n]) => `#${c}${p === null ? '' : ',' + p}${n === null ? '' : '/' + n}`);

test('property: any text in any kind is an MP command or the syntax error, never another throw', () => {
  fc.assert(
    fc.property(kind, fc.oneof(anyText, rawSyntax, rawSyntax.map((s) => s.slice(1))), (k, text) => {
      const c = orSyntaxError(() => toMpCommand(k, text));
      const p = orSyntaxError(() => parseExtended(text));
      for (const m of [c, p]) {
        if (!m) continue;
        assert.ok(Number.isInteger(m.code) && m.code >= 0 && m.code <= 9999, String(m.code));
        if (m.records !== undefined) assert.ok(Number.isInteger(m.records) && m.records >= 0 && m.records <= MAX_RECORDS);
        assert.equal(typeof m.params, 'string');
      }
      if (!c) return;
      assert.ok(text.trim() !== '' && text.length <= MAX_COMMAND_LENGTH);
      if (k !== 'js') assert.ok(!/[\r\n]/.test(c.params), 'one line');
      if (k === 'shell') assert.deepEqual(c, { code: 7, params: text });
      if (k === 'js') {
        assert.equal(c.code, 7);
        assert.ok(c.params.startsWith('script eval ') && Buffer.byteLength(c.params) <= CONSOLE_LINE_BYTES);
      }
    }),
    fuzzParams(4000),
  );
});

test('property: the raw syntax reads back what it writes: code, parameters (no "/") and record count', () => {
  const params = cmdText(30).map((s) => s.replace(/\//g, ''));
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 9999 }), fc.option(params), fc.option(fc.integer({ min: 0, max: MAX_RECORDS })), (code, p, n) => {
      const text = `#${code}${p === null ? '' : ',' + p}${n === null ? '' : '/' + n}`;
      const expected: MpCommand = n === null ? { code, params: p ?? '' } : { code, params: p ?? '', records: n };
      assert.deepEqual(parseExtended(text), expected);
      assert.equal(mpCommandData(expected), p === null || p === '' ? String(code) : `${code},${p}`);
      if (!/[\r\n]/.test(text)) {
        assert.deepEqual(toMpCommand('mp', text), expected);
        assert.deepEqual(toMpCommand('mp', text.slice(1)), expected, 'the # is optional for kind mp');
      }
    }),
    fuzzParams(3000),
  );
  fc.assert(
    fc.property(cmdText(20), (t) => {
      if (t.length > 0 && !t.startsWith('#')) {
        const ussd = `*${t}#`;
        assert.deepEqual(parseExtended(ussd), { code: 41, params: ussd });
        assert.deepEqual(parseExtended('@' + t), { code: 49, params: t });
      }
    }),
    fuzzParams(1000),
  );
});

// --- redaction ---

/** A secret that cannot be part of the rest of the line by chance. */
const secret = fc
  .tuple(fc.string({ unit: fc.constantFrom('1', '2', 'x', ' ', '\t', ',', '\u2028', '\u2029', '\u0085', '\r', '\n', '"', 'é'), maxLength: 8 }), fc.string({ unit: fc.constantFrom('1', '2', 'x'), maxLength: 4 }))
  .map(([a, b]) => `Q7${a}${b}`);
const blank = fc.string({ unit: fc.constantFrom(' ', '\t', '\u00a0'), minLength: 1, maxLength: 3 });
const lead = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 2 });
const caseOf = (w: string): fc.Arbitrary<string> => fc.array(fc.boolean(), { minLength: w.length, maxLength: w.length }).map((up) => [...w].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));

test('property: PINs and passwords never reach the audit text, whatever characters they hold', () => {
  const verb = fc.constantFrom('lock', 'unlock', 'valet', 'unvalet').chain(caseOf);
  fc.assert(
    fc.property(lead, verb, blank, secret, (l, v, b, s) => {
      const line = `${l}${v}${b}${s}`;
      const out = redactShell(line);
      assert.ok(!out.includes(s), `${JSON.stringify(line)} → ${JSON.stringify(out)}`);
      assert.ok(!redactMp({ code: 7, params: line }).includes(s));
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(lead, caseOf('config'), blank, caseOf('set'), blank, caseOf('password'), blank, fc.constantFrom('module', 'server.v2', 'x'), blank, secret, (l, c, b1, st, b2, pw, b3, name, b4, s) => {
      const line = `${l}${c}${b1}${st}${b2}${pw}${b3}${name}${b4}${s}`;
      assert.ok(!redactShell(line).includes(s), JSON.stringify(line));
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(fc.constantFrom(20, 21, 22, 23), secret, (code, s) => {
      assert.equal(redactMp({ code, params: s }), `${code},***`);
      assert.equal(redactMp({ code, params: '' }), String(code));
    }),
    fuzzParams(500),
  );
  // MP 4, parameter slots 1 (module password) and 9 (server password), as the module reads the slot (atoi)
  fc.assert(
    fc.property(fc.constantFrom('1', '9', '01', '09', ' 1', '+9', '1 ', '001'), secret, (slot, s) => {
      const out = redactMp({ code: 4, params: `${slot},${s}` });
      assert.ok(!out.includes(s), `4,${slot},… → ${out}`);
    }),
    fuzzParams(500),
  );
});

test('a PIN after a line separator character is masked too (regression)', () => {
  assert.equal(redactShell('lock 12\u202834'), 'lock ***');
  assert.equal(redactShell('config set password module a\u2029b'), 'config set password module ***');
  assert.equal(redactMp({ code: 4, params: '01,secret' }), '4,01,***');
});

test('property: redaction keeps every other command as it is', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 9999 }), anyText, (code, params) => {
      const out = redactMp({ code, params });
      if (code === 7) return assert.equal(out, `7,${redactShell(params)}`);
      if (code >= 20 && code <= 23) return;
      if (code === 4) return assert.ok(out.startsWith('4,'));
      assert.equal(out, mpCommandData({ code, params }));
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(anyText, (text) => {
      if (!/^\s*(lock|unlock|valet|unvalet|config)\s/i.test(text)) assert.equal(redactShell(text), text);
    }),
    fuzzParams(2000),
  );
});

// --- outcomes ---

test('property: c records round-trip and any records make an outcome with a known result code', () => {
  fc.assert(
    fc.property(fc.nat(), fc.nat(), fc.option(anyText), (code, result, data) => {
      const line = data === null ? `${code},${result}` : `${code},${result},${data}`;
      assert.deepEqual(parseResponse(line), { code, result, data: data ?? '' });
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(fc.array(fc.oneof(anyText, fc.tuple(fc.nat(50), fc.nat(5), anyText).map(([c, r, d]) => `${c},${r},${d}`)), { maxLength: 5 }), (records) => {
      const o = outcomeOf(records);
      assert.ok([0, 1, 2, 3].includes(o.result));
      assert.ok(!o.output.includes('\r'), 'CR is LF');
      assert.equal(decodeText(o.output), o.output);
    }),
    fuzzParams(2000),
  );
});

test('property: the v3 console mapping gives one known command line or none, and an outcome for any output', () => {
  const params = fc.oneof(anyText, fc.constantFrom('0', '1', '3', '4', '5', ' 1', '1234', '99', '123456789012', '1,2', '1e1', 'AT+CSQ'), fc.nat().map(String));
  const output = fc.oneof(anyText, fc.constantFrom('Vehicle locked', 'Error: x not available', 'Error: failed', "Charge mode 'range' set", '+CSQ: 9\r\nOK\r\n', 'ERROR', ' \r\n '));
  fc.assert(
    fc.property(fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 9999 })), params, output, (code, p, out) => {
      const cmd: MpCommand = { code, params: p };
      const shell = mpToShell(cmd);
      if (!shell) return;
      if (code !== 7 && code !== 49) assert.match(shell.line, /^[a-z]+( [a-z]+)*( \d+)?$/, shell.line);
      const o = shellOutcome(cmd, shell, out);
      assert.ok([0, 1, 2].includes(o.result));
      assert.ok(!o.output.includes('\r'));
      const data = responseData(cmd, o, encodeText);
      assert.deepEqual(parseResponse(data)?.code, code);
      assert.ok(!data.includes('\n'), 'one MP line');
    }),
    fuzzParams(3000),
  );
});

// --- time ---

test('property: every command parser takes linear time on 100 KB adversarial text', () => {
  const long = fc
    .tuple(
      fc.constantFrom('', '#', '#1', '#1,', '*', '@', 'lock ', 'config set password x ', 'lock\t', '7,0,', '1,', 'Error: '),
      fc.constantFrom(',', '/', ' ', '1', '#', '\t', ' \t', '1,', 'a ', '\r', 'ERROR', '\u2028', '"', "'"),
      fc.integer({ min: 1000, max: 100_000 }),
      fc.constantFrom('', '/', '/1', '#', '\n', 'x', '\u2028'),
    )
    .map(([p, r, n, s]) => p + r.repeat(Math.ceil(n / r.length)).slice(0, n) + s);
  fc.assert(
    fc.property(long, kind, (text, k) => {
      timed('parseExtended', text, () => orSyntaxError(() => parseExtended(text)));
      timed('toMpCommand', text, () => orSyntaxError(() => toMpCommand(k, text)));
      timed('redactShell', text, () => redactShell(text));
      timed('redactMp', text, () => redactMp({ code: 4, params: text }));
      timed('parseResponse', text, () => parseResponse(text));
      timed('outcomeOf', text, () => outcomeOf([text, text]));
      const cmd = { code: 49, params: 'AT' + text };
      timed('shellOutcome', text, () => shellOutcome(cmd, mpToShell(cmd)!, text));
      timed('shellOutcome 10', text, () => shellOutcome({ code: 10, params: '0' }, mpToShell({ code: 10, params: '0' })!, text));
    }),
    longInputParams(150),
  );
});
