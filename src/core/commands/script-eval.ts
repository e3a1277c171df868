/**
 * JavaScript for a module's console: the one line `script eval <code>` that runs `code` unchanged.
 * Pure.
 *
 * The console's line editor (microrl, in the OVMS firmware) has no escape character. It splits a
 * line at spaces; a token that starts with `"` or `'` runs to the next occurrence of the same
 * quote character, which must be followed by a space or the end of the line; a line ends at LF,
 * other control characters are edited away (TAB triggers completion), and a line keeps at most
 * 799 bytes of UTF-8. `script eval` takes exactly one token, so the code must be one quoted token:
 *
 * - without `"` (and without control characters): `script eval "<code>"`;
 * - else without `'`: `script eval '<code>'`;
 * - else (both quotes, or line breaks and tabs): the code is percent-encoded and decoded on the
 *   module, `script eval "eval(decodeURIComponent('<encoded>'))"`: the encoding holds neither
 *   quote, and the module's engine (Duktape, ECMAScript 5.1) has both functions. `eval` of global
 *   code runs as the code itself would, line comments and all.
 *
 * A line longer than the module keeps is refused rather than cut (a cut script fails in obscure
 * ways); the module's own HTTP API (`type=js`) takes longer scripts.
 */
import { VtsError } from '../../errors.js';

/** Bytes of one console line the module keeps (microrl's buffer of 800 holds the terminating zero). */
export const CONSOLE_LINE_BYTES = 799;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const syntax = (detail: string): VtsError => new VtsError('VTS_ERR_COMMAND_SYNTAX', detail);

/** The console line that runs `code` with `script eval`; throws VTS_ERR_COMMAND_SYNTAX when it cannot be one line. */
export function scriptEvalLine(code: string): string {
  if (code.trim() === '') throw syntax('empty script');
  const line = quotedLine(code);
  const bytes = Buffer.byteLength(line, 'utf8');
  if (bytes > CONSOLE_LINE_BYTES) {
    throw syntax(
      `the script makes a console line of ${bytes} bytes, more than the ${CONSOLE_LINE_BYTES} a module reads: ` +
        "send it to the module's HTTP API (type js), or store it on the module and use script run",
    );
  }
  return line;
}

function quotedLine(code: string): string {
  if (!CONTROL.test(code)) {
    if (!code.includes('"')) return `script eval "${code}"`;
    if (!code.includes("'")) return `script eval '${code}'`;
  }
  let encoded: string;
  try {
    encoded = encodeURIComponent(code).replace(/'/g, '%27');
  } catch {
    throw syntax('the script is not valid Unicode (a lone surrogate)');
  }
  return `script eval "eval(decodeURIComponent('${encoded}'))"`;
}
