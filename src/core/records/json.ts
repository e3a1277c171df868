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
  keys: string[];
  /** `{"key":` for the first key, `,"key":` for the others. */
  prefixes: string[];
}

const MAX_SHAPES = 1024;
const shapes = new Map<string, Shape>();

function shapeOf(keys: string[]): Shape {
  const id = keys.join('\0');
  let shape = shapes.get(id);
  if (!shape) {
    const sorted = [...keys].sort();
    shape = { keys: sorted, prefixes: sorted.map((k, i) => (i === 0 ? '{' : ',') + JSON.stringify(k) + ':') };
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(id, shape);
  }
  return shape;
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
