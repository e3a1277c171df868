/**
 * The CSV download of historical records (README, HTTP API v2, "CSV downloads"): RFC 4180 text
 * with CRLF line ends. A field is quoted when it contains a comma, a double quote, CR or LF, and
 * its quotes are doubled. Pure: no I/O.
 *
 * Records: header `vehicleid,type,recordnumber,timestamp,field1,…,fieldN`. A record's data is the
 * car's own comma list (no escaping exists in it), so it is split at every comma into
 * `field1…fieldN`, N being the widest record of the download (at least 1); narrower records are
 * padded with empty cells. Rows are ordered by type (case-insensitively, as the store compares
 * types), then time, then record number. Timestamps are `YYYY-MM-DD HH:MM:SS` UTC.
 */
import type { HistoricalTypeSummary } from '../mp/server-commands.js';
import { formatUtc } from '../time.js';

export const CSV_EOL = '\r\n';
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

export interface CsvRecord {
  vehicleId: string;
  type: string;
  recordNumber: number;
  /** Epoch seconds. */
  time: number;
  data: string;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One field: as is, or quoted with its quotes doubled when it holds `,`, `"`, CR or LF. */
export function csvField(value: string | number): string {
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One row: the fields, separated by commas, ended by CRLF. */
export function csvRow(fields: readonly (string | number)[]): string {
  let out = '';
  for (let i = 0; i < fields.length; i++) out += (i === 0 ? '' : ',') + csvField(fields[i]!);
  return out + CSV_EOL;
}

/** A record's data as its fields (`''` is one empty field; joining with `,` gives the data back). */
export function splitData(data: string): string[] {
  return data.split(',');
}

/** Lower-cases ASCII letters only, as SQLite's NOCASE collation does. */
export function foldType(type: string): string {
  return type.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** The store's order of types: by UTF-16 code unit after folding ASCII letters to lower case. */
export function compareTypes(a: string, b: string): number {
  const fa = foldType(a);
  const fb = foldType(b);
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

function compareRecords(a: CsvRecord, b: CsvRecord): number {
  return compareTypes(a.type, b.type) || a.time - b.time || a.recordNumber - b.recordNumber;
}

/** The download of records: header and one row per record, ordered (see the module comment). */
export function historicalCsv(records: readonly CsvRecord[]): string {
  const split = [...records].sort(compareRecords).map((r) => ({ r, fields: splitData(r.data) }));
  let width = 1;
  for (const { fields } of split) if (fields.length > width) width = fields.length;
  const header = ['vehicleid', 'type', 'recordnumber', 'timestamp'];
  for (let i = 1; i <= width; i++) header.push(`field${i}`);
  const rows = [csvRow(header)];
  for (const { r, fields } of split) {
    const row: (string | number)[] = [r.vehicleId, r.type, r.recordNumber, formatUtc(r.time), ...fields];
    while (row.length < header.length) row.push('');
    rows.push(csvRow(row));
  }
  return rows.join('');
}

/** The summary (`GET /api/historical/<id>?format=csv`): one row per type, as the JSON one. */
export function historicalSummaryCsv(vehicleId: string, types: readonly HistoricalTypeSummary[]): string {
  const rows = [csvRow(['vehicleid', 'type', 'distinctrecs', 'totalrecs', 'totalsize', 'first', 'last'])];
  for (const t of types) {
    rows.push(csvRow([vehicleId, t.type, t.distinctRecords, t.totalRecords, t.totalSize, formatUtc(t.first), formatUtc(t.last)]));
  }
  return rows.join('');
}

/**
 * A comma list of record types (`fn.types`): trimmed, empty entries dropped, duplicates (in any
 * case) kept once, in the store's type order.
 */
export function parseTypeList(text: string): string[] {
  const seen = new Map<string, string>();
  for (const raw of text.split(',')) {
    const type = raw.trim();
    if (type !== '' && !seen.has(foldType(type))) seen.set(foldType(type), type);
  }
  return [...seen.values()].sort(compareTypes);
}

const FILENAME_UNSAFE = /[^A-Za-z0-9._+-]/g;
const MAX_FILENAME = 100;

/**
 * `<vehicle>-<type>[+<type>…].csv` (or `<vehicle>-<what>.csv` for a fixed name) with every
 * character other than letters, digits, `.`, `_`, `+` and `-` replaced by `_` (`*-LOG-Trip` →
 * `_-LOG-Trip`), so it is a safe file name everywhere and needs no quoting beyond the quotes of
 * `Content-Disposition`. Too long a list of types gives `<vehicle>-historical.csv`.
 */
export function csvFilename(vehicleId: string, types: readonly string[] | string): string {
  const what = typeof types === 'string' ? types : types.join('+');
  const name = `${vehicleId}-${what}`.replace(FILENAME_UNSAFE, '_');
  return (name.length <= MAX_FILENAME ? name : `${vehicleId.replace(FILENAME_UNSAFE, '_')}-historical`) + '.csv';
}
