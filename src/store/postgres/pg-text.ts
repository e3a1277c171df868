/**
 * Text with a NUL character, as PostgreSQL keeps it. PostgreSQL refuses U+0000 in a text value
 * (22021, "invalid byte sequence") where SQLite stores it as any other character: a car message
 * holding one failed its whole write batch, and a lookup of a name holding one was an error. So
 * every text vts hands to PostgreSQL has U+0000 written as U+FFFF "0" (and U+FFFF itself, a
 * noncharacter no client sends, as U+FFFF U+FFFF), and every text read back is turned back:
 * both stores accept the same values and give back what was stored. Equality, uniqueness and
 * `lower()` work on the written form as on the text itself; only the byte counts of the history
 * summary count an escaped character as four bytes.
 *
 * The parameters are written by the connections' class (`NulSafeClient`, given to the pool), the
 * results read back by the type parsers of text columns (`fromPgText`).
 */
import pg from 'pg';

const ESC = '\uffff';
// eslint-disable-next-line no-control-regex -- NUL is what this is about
const NEEDS_ESCAPE = /[\u0000\uffff]/;
// eslint-disable-next-line no-control-regex -- NUL is what this is about
const ESCAPED = /[\u0000\uffff]/g;
const WRITTEN = /\uffff([0\uffff])/g;

/** The text as written to PostgreSQL. */
export function toPgText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(ESCAPED, (c) => (c === '\u0000' ? ESC + '0' : ESC + ESC)) : s;
}

/** The text as read from PostgreSQL (an escape that is not one of toPgText stays as it is). */
export function fromPgText(s: string): string {
  return s.includes(ESC) ? s.replace(WRITTEN, (_, c: string) => (c === '0' ? '\u0000' : ESC)) : s;
}

function toPgValue(v: unknown): unknown {
  if (typeof v === 'string') return toPgText(v);
  if (Array.isArray(v)) return v.some((x) => typeof x === 'string') ? v.map((x: unknown) => (typeof x === 'string' ? toPgText(x) : x)) : v;
  return v;
}

function toPgValues(values: unknown): unknown {
  return Array.isArray(values) ? values.map(toPgValue) : values;
}

type QueryFn = (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) => unknown;
const baseQuery = pg.Client.prototype.query as unknown as QueryFn;

/** A pg client whose statements' text parameters (arrays of text included) are written by toPgText. */
export class NulSafeClient extends pg.Client {}

(NulSafeClient.prototype as unknown as { query: QueryFn }).query = function (this: pg.Client, config, values, callback) {
  if (typeof config === 'object' && config !== null && typeof (config as { submit?: unknown }).submit !== 'function') {
    const c = config as { values?: unknown };
    if (Array.isArray(c.values)) config = { ...c, values: toPgValues(c.values) };
  }
  return baseQuery.call(this, config, toPgValues(values), callback);
};
