/**
 * Helpers shared by the record decoders: field splitting as REF does it, masked bit fields, and the
 * `m_msgtime_<x>` / `m_msgage_<x>` pair. Pure: the caller passes the current time.
 */
import { formatUtc } from '../time.js';

/** A stored car message as the decoders need it. */
export interface StoredRecord {
  data: string;
  /** Epoch seconds the server received it. */
  time: number;
  paranoid: boolean;
}

/** A decoded HTTP body: message fields are strings (null when absent), computed values numbers. */
export type RecordBody = Record<string, string | number | null>;

/** What a decoder answers when the record it needs is paranoid (encrypted): HTTP 502. */
export const PARANOID = 'paranoid' as const;
export type RecordResult = RecordBody | typeof PARANOID;

/**
 * Perl's `split /,/`: trailing empty fields are dropped, so a field the message ends before, or
 * that is empty at the end, reads as undefined (JSON null); an empty field in the middle is `''`.
 */
export function splitFields(data: string): string[] {
  const f = data.split(',');
  while (f.length > 0 && f[f.length - 1] === '') f.pop();
  return f;
}

/** A 1-based field as a JSON value: the text as sent, or null when the message has no such field. */
export function field(fields: readonly string[], n: number): string | null {
  return fields[n - 1] ?? null;
}

/** Copies 1-based fields into `body` under their keys. */
export function copyFields(body: RecordBody, fields: readonly string[], map: readonly (readonly [string, number])[]): void {
  for (const [key, n] of map) body[key] = field(fields, n);
}

/** A 0-based field as a finite number, or null when it is missing, empty or not a number. */
export function numberAt(fields: readonly (string | undefined)[], index: number): number | null {
  const t = fields[index];
  if (t === undefined || t.trim() === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** Perl's numeric value of a field used as an integer (leading digits; `''`, undef, text: 0). */
export function integerOf(text: string | undefined): number {
  if (text === undefined) return 0;
  if (/^\d{1,9}$/.test(text)) return +text; // the usual case
  const m = /^\s*([+-]?)(\d+)/.exec(text);
  if (!m) return 0;
  const n = Number(m[2]);
  return m[1] === '-' ? -n : n;
}

/** `field & mask` as REF reports it: the masked value (e.g. `caron` is 128 or 0), never a boolean. */
export function masked(fields: readonly string[], n: number, mask: number): number {
  return integerOf(fields[n - 1]) & mask;
}

/** Adds `m_msgtime_<suffix>` (UTC text) and `m_msgage_<suffix>` (seconds, a number). */
export function addTime(body: RecordBody, suffix: string, rec: StoredRecord, now: number): void {
  body['m_msgtime_' + suffix] = formatUtc(rec.time);
  body['m_msgage_' + suffix] = now - rec.time;
}
