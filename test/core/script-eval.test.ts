/**
 * `script eval` lines for JavaScript (src/core/commands/script-eval.ts): whatever the script holds,
 * the module's line editor reads the line as `script eval <one token>`, and that token is the
 * script or decodes to it. Checked with the emulator's tokenizer (the firmware's microrl rules)
 * and its script engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CONSOLE_LINE_BYTES, scriptEvalLine } from '../../src/core/commands/script-eval.js';
import { toMpCommand } from '../../src/core/commands/request.js';
import { isVtsError } from '../../src/errors.js';
import { MAX_LINE_BYTES, splitLines, tokenize } from '../../src/module/console/tokenizer.js';

const DECODE = /^eval\(decodeURIComponent\('([^'"]*)'\)\)$/;

/** The script a line runs, as the console reads it; null when the console refuses the line. */
function scriptOf(line: string): string | null {
  const lines = splitLines(line);
  if (lines.length !== 1 || lines[0] !== line) return null;
  const tokens = tokenize(line);
  if (!tokens || tokens.length !== 3 || tokens[0] !== 'script' || tokens[1] !== 'eval') return null;
  const m = DECODE.exec(tokens[2]!);
  return m ? decodeURIComponent(m[1]!) : tokens[2]!;
}

test('the README example and its siblings: the simplest quoting that keeps the script', () => {
  assert.equal(scriptEvalLine('print(OvmsMetrics.Value("v.b.soc"))'), `script eval 'print(OvmsMetrics.Value("v.b.soc"))'`);
  assert.equal(scriptEvalLine("print(OvmsMetrics.Value('v.b.soc'))"), `script eval "print(OvmsMetrics.Value('v.b.soc'))"`);
  assert.equal(scriptEvalLine('print(1 + 1); print("\\\\")'), `script eval 'print(1 + 1); print("\\\\")'`, 'backslashes stay as they are');
  assert.equal(scriptEvalLine('print("Grüße ✓")'), `script eval 'print("Grüße ✓")'`, 'non-ASCII stays as it is');
  assert.equal(
    scriptEvalLine(`print("it's")`),
    `script eval "eval(decodeURIComponent('print(%22it%27s%22)'))"`,
    'both quotes: encoded',
  );
  assert.equal(scriptEvalLine('var a = 1; // one\nprint(a)'), `script eval "eval(decodeURIComponent('var%20a%20%3D%201%3B%20%2F%2F%20one%0Aprint(a)'))"`);
  assert.equal(scriptOf(scriptEvalLine('var a = 1; // one\nprint(a)')), 'var a = 1; // one\nprint(a)');
  assert.equal(CONSOLE_LINE_BYTES, MAX_LINE_BYTES, 'the same limit as the emulated console');
});

test('the kind js of a command request is the script eval line; CRLF becomes LF', () => {
  assert.deepEqual(toMpCommand('js', 'print("x")'), { code: 7, params: `script eval 'print("x")'` });
  assert.equal(scriptOf(toMpCommand('js', 'var a = 1;\r\nprint(a)').params), 'var a = 1;\nprint(a)');
});

test('refused with one clear error: empty, longer than a console line, not Unicode', () => {
  const refused = (code: string, pattern: RegExp): void =>
    assert.throws(() => scriptEvalLine(code), (e: unknown) => isVtsError(e, 'VTS_ERR_COMMAND_SYNTAX') && pattern.test(e.message), code.slice(0, 20));
  refused('', /empty script/);
  refused('  ', /empty script/);
  refused(`print("${'x'.repeat(800)}")`, /console line of \d+ bytes, more than the 799 a module reads: send it to the module's HTTP API/);
  refused(`print("\ud800")\n`, /not valid Unicode/);
  // the longest script that fits: 799 bytes of line
  const fits = 'x'.repeat(CONSOLE_LINE_BYTES - 'script eval ""'.length);
  assert.equal(Buffer.byteLength(scriptEvalLine(fits)), CONSOLE_LINE_BYTES);
});

test('property: any script that is accepted reaches the console as exactly that script', () => {
  const chars = fc.constantFrom('"', "'", '\\', ';', ' ', '\n', '\r', '\t', '#', '%', '(', ')', 'a', 'Z', '0', 'é', '温', '✓', '😀', '\u0000', '\u007f');
  const script = fc.oneof(fc.string({ unit: chars, maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 120 }), fc.string({ maxLength: 200 }));
  fc.assert(
    fc.property(script, (code) => {
      let line: string;
      try {
        line = scriptEvalLine(code);
      } catch (e) {
        assert.ok(isVtsError(e, 'VTS_ERR_COMMAND_SYNTAX'), String(e));
        return;
      }
      assert.ok(Buffer.byteLength(line) <= CONSOLE_LINE_BYTES);
      assert.equal(scriptOf(line), code);
    }),
    { numRuns: 2000 },
  );
});
