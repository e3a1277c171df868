/**
 * JSON as the reference server writes it (JSON::XS `canonical`): object keys sorted, compact, UTF-8,
 * followed by one `\n`. Non-integer numbers have at most 15 significant digits, as Perl prints them
 * (`29.9938041626073`, not JavaScript's `29.99380416260727`).
 *
 * The bodies of one endpoint have the same few key sets again and again, so each key set's sorted
 * order and its `"key":` prefixes are computed once and remembered (a bounded cache).
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined };

interface Shape {
  /** The keys in the object's own order: the id joins them with NUL, which a key may itself hold. */
  source: string[];
  keys: string[];
  /** `{"key":` for the first key, `,"key":` for the others. */
  prefixes: string[];
}

const MAX_SHAPES = 1024;
const shapes = new Map<string, Shape>();

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function newShape(keys: string[]): Shape {
  const sorted = [...keys].sort();
  return { source: keys, keys: sorted, prefixes: sorted.map((k, i) => (i === 0 ? '{' : ',') + JSON.stringify(k) + ':') };
}

function shapeOf(keys: string[]): Shape {
  const id = keys.join('\0');
  const shape = shapes.get(id);
  if (shape) {
    // keys holding NUL can give another key set's id (`a\0b` and `a`,`b`): that one is not cached
    return sameKeys(shape.source, keys) ? shape : newShape(keys);
  }
  const created = newShape(keys);
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  shapes.set(id, created);
  return created;
}

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
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + write(v[i]);
    return out + ']';
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '{}';
  const shape = shapeOf(keys);
  let out = '';
  for (let i = 0; i < shape.keys.length; i++) out += shape.prefixes[i] + write(v[shape.keys[i]!]);
  return out + '}';
}

/** The body text: canonical JSON plus the trailing newline. */
export function canonicalJson(value: JsonValue): string {
  return write(value) + '\n';
}
