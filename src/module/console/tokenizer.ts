/**
 * The firmware's line editor (microrl) as far as a remote shell sees it (docs/protocol/commands.md
 * §2.2): how a payload becomes lines, and a line becomes tokens.
 *
 * - LF ends a line; CR is ignored; other control characters are dropped, except backspace (BS,
 *   DEL), which deletes the previous character. Leading spaces are dropped.
 * - A line holds at most 799 bytes (UTF-8); further characters are silently dropped.
 * - Spaces separate tokens. A token that starts with `"` or `'` is quoted up to the same quote
 *   character, which must be followed by a space or the end of the line; a quote inside an
 *   unquoted token is an ordinary character. At most 10 quoted tokens per line.
 * - microrl reserves one slot of its 128-entry token array, so a line of 128 or more tokens is
 *   refused, as are an unterminated quote, a closing quote followed by a character, and an 11th
 *   quoted token: `ERROR:too many tokens or invalid quoting`, nothing is executed.
 * Pure.
 */

/** Bytes a line keeps (microrl's 800-byte buffer holds the terminating zero). */
export const MAX_LINE_BYTES = 799;
/** Size of microrl's token array: a line needs fewer tokens than this. */
export const MAX_TOKENS = 128;
/** Quoted tokens allowed per line. */
export const MAX_QUOTED_TOKENS = 10;
/** microrl's message when `tokenize` refuses a line (printed with a line end). */
export const TOKENIZE_ERROR = 'ERROR:too many tokens or invalid quoting';

function utf8Length(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/**
 * Splits a payload into the lines microrl would execute, each already edited as microrl edits
 * its buffer (control characters, backspace, leading spaces, the byte limit). The text after the
 * last LF is a line too (the remote shells append an LF to every payload).
 */
export function splitLines(payload: string): string[] {
  const lines: string[] = [];
  let chars: string[] = [];
  let bytes = 0;
  for (const ch of payload) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '\n') {
      lines.push(chars.join(''));
      chars = [];
      bytes = 0;
    } else if (cp === 0x08 || cp === 0x7f) {
      const last = chars.pop();
      if (last !== undefined) bytes -= utf8Length(last.codePointAt(0) ?? 0);
    } else if (cp < 0x20) {
      // CR, TAB (completion), ESC and the other control keys edit nothing we model
    } else if (ch === ' ' && chars.length === 0) {
      // microrl ignores a space typed at the start of the line
    } else {
      const n = utf8Length(cp);
      if (bytes + n <= MAX_LINE_BYTES) {
        chars.push(ch);
        bytes += n;
      }
    }
  }
  lines.push(chars.join(''));
  return lines;
}

/** The tokens of one line (an empty array for a blank line), or null when microrl refuses it. */
export function tokenize(line: string): string[] | null {
  const tokens: string[] = [];
  const n = line.length;
  let i = 0;
  let quoted = 0;
  for (;;) {
    while (i < n && line[i] === ' ') i++;
    if (i >= n) return tokens;
    let quote = '';
    if (line[i] === '"' || line[i] === "'") {
      if (quoted >= MAX_QUOTED_TOKENS) return null;
      quote = line[i] as string;
      i++;
    }
    const start = i;
    let end = -1;
    while (i < n) {
      const c = line[i];
      if (quote === '' && c === ' ') break;
      if (quote !== '' && c === quote) {
        if (i + 1 < n && line[i + 1] !== ' ') return null;
        end = i;
        quoted++;
        i++;
        break;
      }
      i++;
    }
    if (quote !== '' && end < 0) return null; // unterminated quote
    tokens.push(line.slice(start, end < 0 ? i : end));
    if (tokens.length >= MAX_TOKENS) return null;
  }
}
