/** Paranoid wrappers `ET<token>` and `EM<code><payload>` (mp-protocol.md §10). */

export type ParanoidMessage =
  | { kind: 'token'; token: string }
  | { kind: 'message'; innerCode: string; payload: string };

/** Parses the data of an `E` message; null when it is not `T…` or `M<code>…` with ≥ 3 chars. */
export function parseParanoid(data: string): ParanoidMessage | null {
  if (data.length < 3) return null; // REF: `E` + sub-type + at least two more chars
  const sub = data[0];
  if (sub === 'T') return { kind: 'token', token: data.slice(1) };
  if (sub === 'M' && /\S/.test(data[1]!)) return { kind: 'message', innerCode: data[1]!, payload: data.slice(2) };
  return null;
}
