/**
 * JSON as the reference server writes it (JSON::XS `canonical`): object keys sorted, compact, UTF-8,
 * followed by one `\n`. Non-integer numbers have at most 15 significant digits, as Perl prints them
 * (`29.9938041626077`, not JavaScript's `29.993804162607668`).
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined };

function number(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(15)));
}

function write(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return number(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return '[' + v.map(write).join(',') + ']';
  const keys = Object.keys(v).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) out += ',';
    out += JSON.stringify(k) + ':' + write(v[k]);
  }
  return out + '}';
}

/** The body text: canonical JSON plus the trailing newline. */
export function canonicalJson(value: JsonValue): string {
  return write(value) + '\n';
}
