/** Paranoid wrappers `ET<token>` and `EM<code><payload>` (docs/protocol/mp.md §10). */

export type ParanoidMessage =
  | { kind: 'token'; token: string }
  | { kind: 'message'; innerCode: string; payload: string };

/**
 * Parses the data of an `E` message; null when it is not `T…` or `M<code>…` with ≥ 3 chars. The
 * inner code is one character (code point) that is not white space, as the code of a bare message
 * (message.ts parseScheme1): never half of a surrogate pair.
 */
export function parseParanoid(data: string): ParanoidMessage | null {
  if (data.length < 3) return null; // REF: `E` + sub-type + at least two more chars
  const sub = data[0];
  if (sub === 'T') return { kind: 'token', token: data.slice(1) };
  if (sub !== 'M') return null;
  const innerCode = String.fromCodePoint(data.codePointAt(1)!);
  if (/\s/u.test(innerCode)) return null;
  return { kind: 'message', innerCode, payload: data.slice(1 + innerCode.length) };
}
