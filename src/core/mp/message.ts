/** One MP message: a code character and its data (docs/protocol/messages.md §1). */

export interface MpMessage {
  code: string;
  data: string;
}

const SCHEME0_PREFIX = /^MP-0\s(\S)/u;

/**
 * Scheme 0 plaintext `MP-0 <code><data>` (docs/protocol/mp.md §4.5). The data is everything after the
 * code, LF and CR included (command 49 output may carry raw LF, docs/protocol/messages.md §5.3).
 * Returns null when the plaintext does not have that shape.
 */
export function parseScheme0(plaintext: string): MpMessage | null {
  const m = SCHEME0_PREFIX.exec(plaintext);
  if (!m) return null;
  const code = m[1]!;
  return { code, data: plaintext.slice(m[0].length) };
}

/** Scheme 1 bare line `<code><data>` (docs/protocol/mp.md §5.2). */
export function parseScheme1(line: string): MpMessage | null {
  const cp = line.codePointAt(0);
  if (cp === undefined || /\s/u.test(String.fromCodePoint(cp))) return null;
  const code = String.fromCodePoint(cp);
  return { code, data: line.slice(code.length) };
}

export function formatScheme0(code: string, data: string): string {
  return `MP-0 ${code}${data}`;
}

/** Splits `data` at the first `n` commas into n+1 fields (the last keeps any further commas). */
export function splitFields(data: string, n: number): string[] | null {
  const out: string[] = [];
  let start = 0;
  for (let k = 0; k < n; k++) {
    const comma = data.indexOf(',', start);
    if (comma < 0) return null;
    out.push(data.slice(start, comma));
    start = comma + 1;
  }
  out.push(data.slice(start));
  return out;
}
