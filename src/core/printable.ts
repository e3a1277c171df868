/**
 * Text from elsewhere (a source database's rows and error messages) made safe to print on a
 * terminal: control characters (C0 but line ends, DEL, C1, which hold the escape sequences that
 * move the cursor, retitle the window or rewrite what was printed) and the bidirectional overrides
 * are shown as `\xNN` / `\u{NNNN}` escapes instead. Pure.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** One line of it: line ends as escapes too. */
export function printableLine(text: string): string {
  return printable(text).replace(/\n/g, '\\n');
}
