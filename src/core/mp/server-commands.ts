/**
 * Answers of the server-side commands 30, 31 and 32 (docs/protocol/mp.md §11.4): each data line is
 * `<fn>,0,<k>,<n>,…` with k = 1…n; an empty result is one `<fn>,1,<text>` line.
 */
import { formatUtc } from '../time.js';

export interface UtilisationDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  carRx: number;
  carTx: number;
  appRx: number;
  appTx: number;
}

export interface HistoricalTypeSummary {
  type: string;
  distinctRecords: number;
  totalRecords: number;
  totalSize: number;
  /** Epoch seconds. */
  first: number;
  last: number;
}

export interface HistoricalRow {
  type: string;
  /** Epoch seconds. */
  time: number;
  recordNumber: number;
  data: string;
}

function numbered(fn: number, lines: string[], emptyText: string): string[] {
  if (lines.length === 0) return [`${fn},1,${emptyText}`];
  return lines.map((line, k) => `${fn},0,${k + 1},${lines.length},${line}`);
}

export function utilisationResponse(days: readonly UtilisationDay[]): string[] {
  return numbered(
    30,
    days.map((d) => `${d.day},${d.carRx},${d.carTx},${d.appRx},${d.appTx}`),
    'No GPRS utilisation data available',
  );
}

export function historicalSummaryResponse(types: readonly HistoricalTypeSummary[]): string[] {
  return numbered(
    31,
    types.map(
      (t) =>
        `${t.type},${t.distinctRecords},${t.totalRecords},${t.totalSize},${formatUtc(t.first)},${formatUtc(t.last)}`,
    ),
    'No historical data available',
  );
}

export function historicalRecordsResponse(rows: readonly HistoricalRow[]): string[] {
  return numbered(
    32,
    rows.map((r) => `${r.type},${formatUtc(r.time)},${r.recordNumber},${r.data}`),
    'No historical data available',
  );
}
